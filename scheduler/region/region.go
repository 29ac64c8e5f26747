// Package region measures how far a seed's region is from a shoot's: the distances of
// Gardener's region-config ConfigMaps, and the Levenshtein fallback for regions they omit.
package region

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Labels and annotations that mark a region-config ConfigMap (Gardener's scheduler).
const (
	// LabelPurpose set to PurposeRegionConfig marks a ConfigMap as a region config.
	LabelPurpose = "scheduling.gardener.cloud/purpose"
	// PurposeRegionConfig is the value of LabelPurpose on region configs.
	PurposeRegionConfig = "region-config"
	// AnnotationCloudProfiles lists, comma separated, the CloudProfiles a region config is for.
	AnnotationCloudProfiles = "scheduling.gardener.cloud/cloudprofiles"
	// AnnotationDistanceThreshold on a region config is the farthest a control plane may
	// move between the seeds' regions, in the config's units (Gardener's threshold for live
	// control plane migrations).
	AnnotationDistanceThreshold = "migration.gardener.cloud/inter-region-distance-threshold"
	// DefaultDistanceThreshold is the threshold without the annotation, as in Gardener:
	// with latencies in milliseconds, 180 ms.
	DefaultDistanceThreshold = 180
)

// Config is a parsed region config: for each shoot region, the distance to each seed region.
type Config struct {
	// Source names the ConfigMap (namespace/name), for messages.
	Source string
	// distances[shootRegion][seedRegion]; a region is at distance 0 from itself unless the
	// ConfigMap says otherwise.
	distances map[string]map[string]int
	// invalid[shootRegion] is why the entry of that region could not be parsed. Like
	// Gardener, a bad entry fails only the shoots of that region.
	invalid map[string]error
	// threshold is the farthest a control plane may move (AnnotationDistanceThreshold);
	// thresholdErr says why the annotation could not be read.
	threshold    int
	thresholdErr error
}

// Paths of what a region config's errors are about, named as Kubernetes names a
// ConfigMap's fields: the threshold annotation, and each region's entry under data (a seed
// region's distance as a key below it, such as data[europe-west1][europe-east1]).
var (
	thresholdPath = field.NewPath("metadata", "annotations").Key(AnnotationDistanceThreshold)
	dataPath      = field.NewPath("data")
)

// Parse reads the data of a region-config ConfigMap. Entries that are not a YAML map of
// region to integer distance are kept as errors for their region, so one bad entry does not
// hide the others; Parse itself never fails.
func Parse(cm *corev1.ConfigMap) *Config {
	c := &Config{Source: cm.Namespace + "/" + cm.Name, distances: map[string]map[string]int{}, invalid: map[string]error{}, threshold: DefaultDistanceThreshold}
	if v, ok := cm.Annotations[AnnotationDistanceThreshold]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			c.thresholdErr = c.errorOf(field.Invalid(thresholdPath, v, `not a whole number of 0 or more, e.g. "180"`))
		}
		c.threshold = n
	}
	for shootRegion, text := range cm.Data {
		d, err := parseEntry(dataPath.Key(shootRegion), text)
		if err != nil {
			c.invalid[shootRegion] = c.errorOf(err)
			continue
		}
		if _, ok := d[shootRegion]; !ok {
			d[shootRegion] = 0
		}
		c.distances[shootRegion] = d
	}
	return c
}

// parseEntry reads the entry of one shoot region, at path: a YAML map of seed region to a
// distance of 0 or more. A negative distance is reported for the first seed region by name,
// so that the same entry always gives the same error.
func parseEntry(path *field.Path, text string) (map[string]int, *field.Error) {
	d := map[string]int{}
	if err := yaml.UnmarshalStrict([]byte(text), &d); err != nil {
		// The entry may be long and span lines: the decoder's words say where it breaks.
		return nil, field.Invalid(path, field.OmitValueType{}, "not a map of seed region to distance (a whole number), e.g. \"europe-west1: 10\": "+err.Error())
	}
	for _, seedRegion := range slices.Sorted(maps.Keys(d)) {
		if d[seedRegion] < 0 {
			return nil, field.Invalid(path.Key(seedRegion), d[seedRegion], "distances must not be negative")
		}
	}
	return d, nil
}

// errorOf names the ConfigMap before the field error err, which stays reachable with
// errors.As.
func (c *Config) errorOf(err *field.Error) error {
	return fmt.Errorf("region config %s: %w", c.Source, err)
}

// Distances returns the distances from a shoot region to the seed regions the config
// names, or nil when it has no entry for the region, or the parse error of the entry.
func (c *Config) Distances(shootRegion string) (map[string]int, error) {
	if c == nil {
		return nil, nil
	}
	if err := c.invalid[shootRegion]; err != nil {
		return nil, err
	}
	return c.distances[shootRegion], nil
}

// Threshold is the farthest a control plane may move between the regions of two seeds:
// the config's annotation, else DefaultDistanceThreshold; the error says why the annotation
// cannot be read.
func (c *Config) Threshold() (int, error) {
	if c == nil {
		return DefaultDistanceThreshold, nil
	}
	return c.threshold, c.thresholdErr
}

// Select picks, from the region-config ConfigMaps, the one for a CloudProfile: those
// labeled as region config whose cloudprofiles annotation names the profile; the first by
// namespace/name wins, as in Gardener.
func Select(cms []*corev1.ConfigMap, cloudProfile string) *corev1.ConfigMap {
	var matching []*corev1.ConfigMap
	for _, cm := range cms {
		if cm.Labels[LabelPurpose] != PurposeRegionConfig {
			continue
		}
		if slices.Contains(CloudProfiles(cm), cloudProfile) {
			matching = append(matching, cm)
		}
	}
	if len(matching) == 0 {
		return nil
	}
	sort.Slice(matching, func(i, j int) bool {
		return matching[i].Namespace+"/"+matching[i].Name < matching[j].Namespace+"/"+matching[j].Name
	})
	return matching[0]
}

// CloudProfiles returns the CloudProfiles a region-config ConfigMap is for: the names of
// its cloudprofiles annotation.
func CloudProfiles(cm *corev1.ConfigMap) []string {
	names := strings.Split(cm.Annotations[AnnotationCloudProfiles], ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names
}

// orientations are the orientation words of region names, in the order Gardener looks for them.
var orientations = []string{"north", "south", "east", "west", "central"}

// Split splits a region name into its base name and orientation: the first of north,
// south, east, west and central (in that order) found anywhere in the name is the
// orientation, and the base name is the rest with a ":" where the orientation was, so that
// "europe-west1" and "europe-east1" share the base "europe-:1". Azure's "northeurope" is
// ":europe" oriented north. A name without an orientation is its own base.
func Split(name string) (base, orientation string) {
	for _, o := range orientations {
		if before, after, ok := strings.Cut(name, o); ok {
			return before + ":" + after, o
		}
	}
	return name, ""
}

// Levenshtein is the edit distance of two strings in runes: insertions, deletions and
// substitutions each cost 1.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Distance is the Levenshtein fallback distance of Gardener's MinimalDistance strategy:
// twice the Levenshtein distance of the base names, plus an orientation correction (0 when
// the orientations match, 1 when only one region has one, 2 when they differ), plus 2 when
// the providers differ. A matching region with a matching provider is always nearest (0).
func Distance(seedRegion, seedProvider, shootRegion, shootProvider string) int {
	seedBase, seedOrientation := Split(seedRegion)
	shootBase, shootOrientation := Split(shootRegion)
	d := 2 * Levenshtein(seedBase, shootBase)
	switch {
	case seedOrientation == shootOrientation:
	case seedOrientation == "" || shootOrientation == "":
		d++
	default:
		d += 2
	}
	if seedProvider != shootProvider {
		d += 2
	}
	return d
}
