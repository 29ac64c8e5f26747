package garden

import (
	"context"
	"errors"
	"fmt"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// ShootTraffic is what gardener-apiserver's own metrics count of the shoots since it
// started: how its watches held up and what the schedulers' bindings met.
type ShootTraffic struct {
	// WatchesCut are the watches of shoots gardener-apiserver closed because their client
	// fell behind (apiserver_terminated_watchers_total). Each client then watches again,
	// and lists every shoot again when its resource version has left the watch cache.
	WatchesCut float64
	// Lists are the lists of shoots served, each page of a paginated list counted.
	Lists float64
	// Bindings are the updates of shoots/binding accepted, BindingConflicts those refused
	// with 409 Conflict.
	Bindings, BindingConflicts float64
}

// ShootTraffic reads ShootTraffic from gardener-apiserver itself, not through the
// aggregator, with the garden's admin credentials.
func (g *Garden) ShootTraffic(ctx context.Context) (ShootTraffic, error) {
	if g.apiServerDirect == nil {
		return ShootTraffic{}, errors.New("gardener-apiserver has not started")
	}
	kube, err := kubernetes.NewForConfig(g.apiServerDirect)
	if err != nil {
		return ShootTraffic{}, fmt.Errorf("a client of gardener-apiserver: %w", err)
	}
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return ShootTraffic{}, fmt.Errorf("reading gardener-apiserver's metrics: %w", err)
	}
	return ParseShootTraffic(string(raw))
}

// ParseShootTraffic reads ShootTraffic from a kube-apiserver-style /metrics text.
func ParseShootTraffic(text string) (ShootTraffic, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return ShootTraffic{}, fmt.Errorf("parsing gardener-apiserver's metrics: %w", err)
	}
	var t ShootTraffic
	for _, mt := range families["apiserver_terminated_watchers_total"].GetMetric() {
		if shootLabels(mt) != nil {
			t.WatchesCut += mt.GetCounter().GetValue()
		}
	}
	for _, mt := range families["apiserver_request_total"].GetMetric() {
		l := shootLabels(mt)
		if l == nil {
			continue
		}
		v := mt.GetCounter().GetValue()
		switch {
		case l["subresource"] == "" && l["verb"] == "LIST":
			t.Lists += v
		case l["subresource"] == "binding" && strings.HasPrefix(l["code"], "2"):
			t.Bindings += v
		case l["subresource"] == "binding" && l["code"] == "409":
			t.BindingConflicts += v
		}
	}
	return t, nil
}

// shootLabels are the labels of a sample about Gardener's shoots; nil for any other.
func shootLabels(mt *dto.Metric) map[string]string {
	labels := make(map[string]string, len(mt.GetLabel()))
	for _, l := range mt.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["group"] != "core.gardener.cloud" || labels["resource"] != "shoots" {
		return nil
	}
	return labels
}
