//go:build integration

package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
)

// intruder is the namespace of a Prometheus the chart's NetworkPolicies do not admit: it
// carries the scraper's labels, but not in the namespace networkPolicy.prometheus selects.
const intruder = "intruder"

// networkPolicyValues turn the chart's NetworkPolicies on for the node: Prometheus in
// monitoring (the chart's default selector), the kube-apiserver's requests from the
// node's address. The intruder's ServiceAccount may read the metrics, so that only the
// network keeps it out; the node's admin may bind by hand, so that its binding reaches the
// webhook.
var networkPolicyValues = []string{
	"networkPolicy.enabled=true",
	"admission.seedName.allowedUsers={kubernetes-admin}",
	"networkPolicy.apiServerCIDRs={" + cluster.NodeIP + "/32}",
	"monitoring.prometheusServiceAccounts[1].namespace=" + intruder, "monitoring.prometheusServiceAccounts[1].name=" + cluster.PrometheusService,
}

// admittedAndRefused checks, with kube-router enforcing the chart's NetworkPolicies, that
// the operator's Prometheus scrapes every part, the kube-apiserver reaches the adapter and
// the scheduler's webhook, and a Prometheus elsewhere reaches no part although its token
// would be accepted.
func admittedAndRefused(ctx context.Context, t *testing.T, cs kubernetes.Interface, c client.Client, prom promv1.API) {
	policies, err := cs.NetworkingV1().NetworkPolicies(namespace).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, policies.Items, 3, "the metrics policy and the adapter's and the webhook's")

	// The scrapers: every target of the operator's Prometheus is up.
	waitFor(t, "every target of the operator's Prometheus up", 2*time.Minute, func() (bool, string) {
		res, _, _, err := prom.Query(ctx, `count(up{job=~"seedscaler-.+"} == 1) == count(up{job=~"seedscaler-.+"})`, time.Now())
		if err != nil {
			return false, err.Error()
		}
		return len(res.(model.Vector)) == 1, res.String()
	})
	// The aggregator: the custom metrics API answers from the adapter's pods.
	waitFor(t, "the custom metrics API through the aggregator", time.Minute, func() (bool, string) {
		out, err := kubectl("get", "--raw", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/"+garden+
			"/managedseedsets.seedmanagement.gardener.cloud/"+setName+"/seedscaler_scheduler_pending_shoots")
		return err == nil, out
	})
	// The webhook: a binding by hand to a seed that does not exist gets the webhook's
	// answer, not the kube-apiserver's failure to call it.
	tenantsNamespace(ctx, t, cs)
	err = c.Create(ctx, builders.MakeShoot(tenants, "by-hand").SeedName("no-such-seed").Obj())
	require.Error(t, err, "the webhook let a binding to a seed that does not exist through")
	assert.Contains(t, err.Error(), "SeedNotFound", "the webhook's verdict")
	assert.NotContains(t, err.Error(), "failed calling webhook")

	// Another pod: a Prometheus with the scraper's labels in another namespace.
	_, fromHost, err := node.InstallPrometheus(ctx, cluster.PrometheusOptions{
		Namespace: intruder, ScrapeNamespace: namespace, ScrapeInterval: 2 * time.Second,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = node.UninstallPrometheus(context.Background(), intruder) })
	other := promQuerier(t, fromHost)
	waitFor(t, "the other Prometheus refused by every part", 2*time.Minute, func() (bool, string) {
		targets, err := other.Targets(ctx)
		if err != nil {
			return false, err.Error()
		}
		var tried, refused int
		var seen []string
		for _, tg := range targets.Active {
			if tg.LastScrape.IsZero() {
				continue
			}
			tried++
			// A scrape the network let through would end in an HTTP answer.
			if tg.Health == promv1.HealthBad && !strings.Contains(tg.LastError, "HTTP status") {
				refused++
			}
			seen = append(seen, fmt.Sprintf("%s %s %q", tg.ScrapeURL, tg.Health, tg.LastError))
		}
		return tried == len(targets.Active) && tried >= 9 && refused == tried, strings.Join(seen, "; ")
	})
	// The operator's Prometheus scraped the same pods all along: what keeps this one out is
	// where it runs, which is what the policy says.
}
