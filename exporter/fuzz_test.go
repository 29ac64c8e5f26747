package exporter

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// FuzzCollect feeds the exporter objects of any content, each taken as a Seed, a
// ManagedSeedSet and a SeedAutoscaler as the dynamic informers would decode them: a scrape
// never panics, and what it exposes is valid (pedantic registry: no duplicate series, label
// values and help consistent). Bad data is skipped and counted, as the collector says.
func FuzzCollect(f *testing.F) {
	for _, name := range []string{"landscape/20-seeds.yaml", "managedseedset.yaml", "seedautoscaler.yaml", "demo/20-managedseedset.yaml", "demo/30-seedautoscaler.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", name))
		require.NoError(f, err)
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			j, err := yaml.YAMLToJSON(doc)
			require.NoError(f, err)
			f.Add(j)
		}
	}
	for _, seed := range []*gardencorev1beta1.Seed{
		builders.MakeSeed("seed-a").Allocatable(100).Ready().Obj(),
		builders.MakeSeed("seed-b").Provider("aws", "eu-central-1").Invisible().Allocatable(10).Obj(),
	} {
		j, err := json.Marshal(seed)
		require.NoError(f, err)
		f.Add(j)
	}
	for _, s := range []string{
		`{"metadata":{"name":"s"},"status":{"capacity":{"shoots":"92E3372036854775807","cpu":true,"x":null},"allocatable":[1],"conditions":[{"type":"A"},{"type":"A","status":"True"},{},"x"]}}`,
		`{"metadata":{"name":"s","namespace":"n"},"spec":{"replicas":"3","metrics":[{"resource":{"name":"shoots","target":{"type":"Utilization","averageUtilization":"1E40000000"}}},{"resource":{"name":"shoots"}}]},"status":{"currentMetrics":[{"resource":{"name":"shoots","current":{"averageValue":"1.5k"}}}],"conditions":{}}}`,
		`{"metadata":"x","spec":[],"status":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if err := utiljson.Unmarshal(data, &obj); err != nil || obj == nil {
			return // outside what the parser is given: the API server sends objects as JSON objects
		}
		fx := newFixture(t)
		for _, add := range []struct {
			transform func(any) (any, error)
			store     func(any) error
		}{
			{transformSeed, fx.src.Seeds.Add},
			{transformManagedSeedSet, fx.src.ManagedSeedSets.Add},
			{transformSeedAutoscaler, fx.src.SeedAutoscalers.Add},
		} {
			u := &unstructured.Unstructured{Object: deepCopy(obj)}
			kept, err := add.transform(u)
			require.NoError(t, err)
			require.NoError(t, add.store(kept))
		}
		reg := prometheus.NewPedanticRegistry()
		require.NoError(t, reg.Register(NewCollector(fx.src, logr.Discard())))
		_, err := reg.Gather()
		require.NoError(t, err)
	})
}

// FuzzShootInfoLine feeds the hand-written garden_shoot_info line names and values of any
// content: the line is one series of the text format whose labels read back as given.
func FuzzShootInfoLine(f *testing.F) {
	f.Add("shoot-a", "garden-dev", "gcp", "evaluation", "europe-west1", "seed-a")
	f.Add(`a"b`, `c\d`, "e\nf", "", "ü", "}")
	f.Fuzz(func(t *testing.T, name, namespace, provider, purpose, region, seed string) {
		values := []string{name, namespace, provider, purpose, region, seed}
		for _, v := range values {
			if !utf8.ValidString(v) {
				return // outside what the parser is given: JSON from the API server holds UTF-8 strings only
			}
		}
		info := &shootInfo{name: name, namespace: namespace, provider: provider, purpose: purpose, region: region, seed: seed}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(info.textLine()))
		require.NoError(t, err, "%q", info.textLine())
		require.Len(t, families["garden_shoot_info"].GetMetric(), 1)
		got := map[string]string{}
		for _, l := range families["garden_shoot_info"].GetMetric()[0].GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for i, v := range values {
			assert.Equal(t, v, got[shootInfoLabelNames[i]], shootInfoLabelNames[i])
		}
	})
}

// deepCopy copies a decoded JSON object, so that each kind's transform has its own.
func deepCopy(obj map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
}
