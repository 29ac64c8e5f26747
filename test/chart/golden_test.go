//go:build integration

package chart

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/test/framework/manifest"
)

// update rewrites the golden files from the chart as it renders now:
//
//	go test -tags integration -run TestRenderingMatchesTheGoldenFiles ./test/chart/ -update
var update = flag.Bool("update", false, "rewrite test/chart/testdata/golden from the chart as it renders now")

// goldenDir holds one file per values file: every object the chart renders with it.
const goldenDir = "testdata/golden"

// The chart renders, with the defaults and with every ci/*.yaml, exactly the objects of its
// golden file: a change to the templates that changes any object shows here, object by
// object, and is either a mistake or regenerated with -update and committed with the reason.
func TestRenderingMatchesTheGoldenFiles(t *testing.T) {
	copied := chartFileContents(t)
	for name, args := range valuesFiles(t) {
		t.Run(name, func(t *testing.T) {
			got := canonicalObjects(t, render(t, args...), copied)
			path := filepath.Join(goldenDir, strings.TrimSuffix(name, ".yaml")+".yaml")
			if *update {
				require.NoError(t, os.MkdirAll(goldenDir, 0o755))
				require.NoError(t, os.WriteFile(path, goldenFile(got), 0o644))
			}
			objs, err := manifest.ReadFile(path)
			require.NoError(t, err, "no golden file for %s: run this test with -update and commit %s", name, path)
			want := canonicalObjects(t, objs, copied)

			for _, key := range slices.Sorted(maps.Keys(want)) {
				if assert.Contains(t, got, key, "%s is no longer rendered", key) {
					assert.Equal(t, want[key], got[key], "%s differs from %s (run with -update if the change is meant)", key, path)
				}
			}
			for _, key := range slices.Sorted(maps.Keys(got)) {
				assert.Contains(t, want, key, "%s is rendered but not in %s (run with -update if it is meant)", key, path)
			}
		})
	}
}

// goldenKey names an object as the golden files do: kind namespace/name.
func goldenKey(o *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
}

// canonicalObjects returns every object as canonical YAML (keys sorted) by goldenKey, with
// what differs from one render to the next, and what the chart copies from its files/ (the
// CRDs, dashboards and rules others change), replaced by a placeholder.
func canonicalObjects(t *testing.T, objs []*unstructured.Unstructured, copied fileContents) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		key := goldenKey(o)
		require.NotContains(t, out, key, "two objects are %s", key)
		c := o.DeepCopy()
		c.Object = maskGenerated(c.Object).(map[string]any)
		copied.replace(c)
		data, err := yaml.Marshal(c.Object)
		require.NoError(t, err, key)
		out[key] = string(data)
	}
	return out
}

// goldenFile writes canonical objects as one YAML stream, sorted by key, each document
// headed by its key.
func goldenFile(objs map[string]string) []byte {
	var b bytes.Buffer
	for _, key := range slices.Sorted(maps.Keys(objs)) {
		fmt.Fprintf(&b, "---\n# %s\n%s", key, objs[key])
	}
	return b.Bytes()
}

// generatedPEM stands for a certificate or key helm template generates anew on every
// render (genCA, genSignedCert): the adapter's and the webhook's when no Secret exists.
const generatedPEM = "<generated PEM>"

// maskGenerated replaces every string that is base64 of PEM (a Secret's tls.crt, a caBundle)
// with generatedPEM.
func maskGenerated(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = maskGenerated(e)
		}
	case []any:
		for i, e := range v {
			v[i] = maskGenerated(e)
		}
	case string:
		if decoded, err := base64.StdEncoding.DecodeString(v); err == nil && bytes.HasPrefix(decoded, []byte("-----BEGIN ")) {
			return generatedPEM
		}
	}
	return v
}

// fileContents are the chart's files/ that templates copy into objects: by path relative
// to the chart, the text, and for YAML the parsed documents.
type fileContents struct {
	text map[string]string
	docs map[string][]map[string]any
}

func chartFileContents(t *testing.T) fileContents {
	t.Helper()
	c := fileContents{text: map[string]string{}, docs: map[string][]map[string]any{}}
	dir := chartDir(t)
	for _, pattern := range []string{"files/*-crds/*.yaml", "files/alerts/*.yaml", "files/dashboards/*.json"} {
		paths, err := filepath.Glob(filepath.Join(dir, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, paths, pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, err := filepath.Rel(dir, p)
			require.NoError(t, err)
			c.text[rel] = string(data)
			if strings.HasSuffix(p, ".yaml") {
				objs, err := manifest.Read(bytes.NewReader(data))
				require.NoError(t, err, rel)
				for _, o := range objs {
					c.docs[rel] = append(c.docs[rel], o.Object)
				}
			}
		}
	}
	return c
}

// replace puts a placeholder naming the file where an object holds a file's content as it
// is: a CRD's spec, a PrometheusRule's spec (the rules file), a ConfigMap's value (a
// dashboard, the rules). What the chart changes in them stays in the golden file.
func (c fileContents) replace(o *unstructured.Unstructured) {
	switch o.GetKind() {
	case "CustomResourceDefinition", "PrometheusRule":
		spec, ok := o.Object["spec"]
		if !ok {
			return
		}
		for _, path := range slices.Sorted(maps.Keys(c.docs)) {
			for _, doc := range c.docs[path] {
				if reflect.DeepEqual(doc["spec"], spec) || (o.GetKind() == "PrometheusRule" && reflect.DeepEqual(doc, spec)) {
					o.Object["spec"] = "<" + path + ">"
					return
				}
			}
		}
	case "ConfigMap":
		data, _, _ := unstructured.NestedStringMap(o.Object, "data")
		for key, value := range data {
			for path, text := range c.text {
				if strings.TrimSpace(value) == strings.TrimSpace(text) {
					data[key] = "<" + path + ">"
				}
			}
		}
		if len(data) > 0 {
			_ = unstructured.SetNestedStringMap(o.Object, data, "data")
		}
	}
}
