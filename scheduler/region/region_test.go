package region

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// loadRegionConfig reads one of the real region configs in examples/region-config.
func loadRegionConfig(t testing.TB, provider string) *corev1.ConfigMap {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "region-config", provider+"-region-config.yaml"))
	require.NoError(t, err)
	_, doc, found := strings.Cut(string(data), "---\n")
	require.True(t, found, "the example starts with a source comment and ---")
	cm := &corev1.ConfigMap{}
	require.NoError(t, yaml.UnmarshalStrict([]byte(doc), cm))
	return cm
}

func TestLevenshtein(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"europe-:1", "europe-:1", 0},
		{"europe-:1", "europe-:2", 1},
		{"us-:1", "europe-:1", 5},
		{"äöü", "aöü", 1}, // runes, not bytes
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Levenshtein(c.a, c.b), "%q vs %q", c.a, c.b)
		assert.Equal(t, c.want, Levenshtein(c.b, c.a), "%q vs %q", c.b, c.a)
	}
}

func TestSplit(t *testing.T) {
	cases := []struct{ region, base, orientation string }{
		{"europe-west1", "europe-:1", "west"},
		{"eu-central-1", "eu-:-1", "central"},
		{"us-east-2", "us-:-2", "east"},
		{"northeurope", ":europe", "north"},
		{"southeastasia", ":eastasia", "south"}, // north, south, east, west, central: first found wins
		{"westcentralus", ":centralus", "west"},
		{"asia-northeast1", "asia-:east1", "north"},
		{"japaneast", "japan:", "east"},
		{"brazil", "brazil", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		base, orientation := Split(c.region)
		assert.Equal(t, c.base, base, c.region)
		assert.Equal(t, c.orientation, orientation, c.region)
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		name                                             string
		seedRegion, seedProvider, shootRegion, shootProv string
		want                                             int
	}{
		{"same region, same provider", "europe-west1", "gcp", "europe-west1", "gcp", 0},
		{"same region, other provider: +2", "europe-west1", "aws", "europe-west1", "gcp", 2},
		{"same base, other orientation: +2", "europe-east1", "gcp", "europe-west1", "gcp", 2},
		{"same base, orientation only on the seed: +1", "europe-west", "gcp", "europe", "gcp", 2*Levenshtein("europe-:", "europe") + 1},
		{"same base, orientation only on the shoot: +1", "europe", "gcp", "europe-west", "gcp", 2*Levenshtein("europe", "europe-:") + 1},
		{"other base, same orientation: twice the Levenshtein distance", "europe-west2", "gcp", "europe-west1", "gcp", 2},
		{"other base, other orientation, other provider", "us-east1", "aws", "europe-west1", "gcp", 2*Levenshtein("us-:1", "europe-:1") + 2 + 2},
		{"no orientations", "brazil", "azure", "brazil", "azure", 0},
		{"azure: same base north/west", "westeurope", "azure", "northeurope", "azure", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Distance(c.seedRegion, c.seedProvider, c.shootRegion, c.shootProv))
		})
	}
}

func TestParseRealConfigs(t *testing.T) {
	for _, provider := range []string{"aws", "azure", "gcp"} {
		t.Run(provider, func(t *testing.T) {
			cm := loadRegionConfig(t, provider)
			c := Parse(cm)
			require.Empty(t, c.invalid)
			assert.Len(t, c.distances, len(cm.Data))
			for shootRegion := range cm.Data {
				d, err := c.Distances(shootRegion)
				require.NoError(t, err)
				assert.Equal(t, 0, d[shootRegion], "a region is at distance 0 from itself")
			}
		})
	}
	azure := Parse(loadRegionConfig(t, "azure"))
	d, err := azure.Distances("francecentral")
	require.NoError(t, err)
	assert.Equal(t, 13, d["uksouth"])
	assert.Equal(t, 17, d["francesouth"])
}

func TestParseKeepsBadEntriesPerRegion(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "rc"}, Data: map[string]string{
		"good":     "other: 5\ngood: 1\n",
		"notamap":  "- a\n- b\n",
		"negative": "zz: -2\nother: -1\n",
		"text":     "other: far\n",
	}}
	c := Parse(cm)
	d, err := c.Distances("good")
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"other": 5, "good": 1}, d, "an explicit self distance is kept")
	notAMap := `Invalid value: not a map of seed region to distance (a whole number), e.g. "europe-west1: 10": error unmarshaling JSON: `
	for bad, want := range map[string]string{
		"notamap":  `region config garden/rc: data[notamap]: ` + notAMap,
		"negative": `region config garden/rc: data[negative][other]: Invalid value: -1: distances must not be negative`,
		"text":     `region config garden/rc: data[text]: ` + notAMap,
	} {
		d, err := c.Distances(bad)
		require.Error(t, err, bad)
		assert.Nil(t, d)
		assert.True(t, strings.HasPrefix(err.Error(), want), "%s: %q starts with %q", bad, err, want)
		var fe *field.Error
		assert.ErrorAs(t, err, &fe, "the field error stays reachable")
	}
	d, err = c.Distances("unknown")
	assert.NoError(t, err)
	assert.Nil(t, d)
	var none *Config
	d, err = none.Distances("x")
	assert.NoError(t, err)
	assert.Nil(t, d)
}

func TestSelectFirstWins(t *testing.T) {
	mk := func(ns, name, profiles string, purpose string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels:      map[string]string{LabelPurpose: purpose},
			Annotations: map[string]string{AnnotationCloudProfiles: profiles},
		}}
	}
	cms := []*corev1.ConfigMap{
		mk("garden", "z-aws", "aws,aws-eu", PurposeRegionConfig),
		mk("garden", "b-aws", "gcp, aws", PurposeRegionConfig),
		mk("garden", "a-unlabelled", "aws", "other"),
		mk("garden", "c-azure", "azure", PurposeRegionConfig),
	}
	assert.Equal(t, "b-aws", Select(cms, "aws").Name, "first by name of those naming the profile")
	assert.Equal(t, "z-aws", Select(cms, "aws-eu").Name)
	assert.Equal(t, "c-azure", Select(cms, "azure").Name)
	assert.Nil(t, Select(cms, "openstack"))
}

// FuzzParse feeds an entry of a region-config ConfigMap anything: Parse never panics, an
// entry it refuses fails only its region and its error names the ConfigMap and the region,
// and an entry it takes reads back the same once written out.
func FuzzParse(f *testing.F) {
	for _, provider := range []string{"aws", "azure", "gcp"} {
		cm := loadRegionConfig(f, provider)
		for k, v := range cm.Data {
			f.Add(k, v)
		}
	}
	f.Add("r", "r: 3\nx: 1\n")
	f.Add("r", "{")
	f.Add("", "- 1")
	f.Add("r", "x: 99999999999999999999")
	f.Add("r", "x: -1")
	f.Add("r", "x: 1.5")
	f.Add("r\n2", "x: y")
	f.Fuzz(func(t *testing.T, key, value string) {
		const other = "zz-other-region"
		if key == other || len(validation.IsConfigMapKey(key)) > 0 {
			return // outside what the parser is given: the API server keeps a ConfigMap from having this key
		}
		c := Parse(&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "fuzz-region-config"},
			Data:       map[string]string{key: value, other: "a: 1\n"},
		})
		d, err := c.Distances(key)
		if err != nil {
			assert.Nil(t, d)
			assert.Regexp(t, "^"+regexp.QuoteMeta(fmt.Sprintf("region config garden/fuzz-region-config: data[%s]", key))+`(?s:\[.*\])?: Invalid value: `, err.Error())
			others, err := c.Distances(other)
			require.NoError(t, err, "a bad entry fails only its region")
			assert.Equal(t, map[string]int{"a": 1, other: 0}, others)
			return
		}
		// A parsed entry always knows the distance of its region to itself, and no distance
		// is negative.
		_, ok := d[key]
		assert.True(t, ok)
		for _, v := range d {
			assert.GreaterOrEqual(t, v, 0)
		}
		out, err := yaml.Marshal(d)
		require.NoError(t, err)
		again, err := Parse(&corev1.ConfigMap{Data: map[string]string{key: string(out)}}).Distances(key)
		require.NoError(t, err, "written out as\n%s", out)
		assert.Equal(t, d, again)
	})
}

func FuzzDistance(f *testing.F) {
	f.Add("europe-west1", "europe-east1", "gcp", "aws")
	f.Add("northeurope", "westeurope", "azure", "azure")
	f.Add("", "central", "", "x")
	f.Add("eu-central-1", "us-east-1", "aws", "aws")
	f.Fuzz(func(t *testing.T, a, b, pa, pb string) {
		d := Distance(a, pa, b, pb)
		// Symmetric in seed and shoot.
		assert.Equal(t, d, Distance(b, pb, a, pa))
		// A region is at distance 0 from itself on the same provider, and 2 on another.
		assert.Equal(t, 0, Distance(a, pa, a, pa))
		if pa != pb {
			assert.Equal(t, 2, Distance(a, pa, a, pb))
		}
		// The provider correction is exactly 2.
		if pa != pb {
			assert.Equal(t, Distance(a, pa, b, pa)+2, d)
		}
		assert.GreaterOrEqual(t, d, 0)
	})
}

func TestThreshold(t *testing.T) {
	config := func(annotations map[string]string) *Config {
		return Parse(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "rc", Annotations: annotations}})
	}
	tests := []struct {
		name    string
		config  *Config
		want    int
		wantErr string
	}{
		{"Gardener's default", config(nil), 180, ""},
		{"no region config", nil, 180, ""},
		{"the annotation", config(map[string]string{AnnotationDistanceThreshold: "120"}), 120, ""},
		{"zero keeps every move in its region", config(map[string]string{AnnotationDistanceThreshold: "0"}), 0, ""},
		{"not a number", config(map[string]string{AnnotationDistanceThreshold: "far"}), 0,
			`region config garden/rc: metadata.annotations[migration.gardener.cloud/inter-region-distance-threshold]: Invalid value: "far": not a whole number of 0 or more, e.g. "180"`},
		{"negative", config(map[string]string{AnnotationDistanceThreshold: "-1"}), -1,
			`region config garden/rc: metadata.annotations[migration.gardener.cloud/inter-region-distance-threshold]: Invalid value: "-1": not a whole number of 0 or more, e.g. "180"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.config.Threshold()
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
