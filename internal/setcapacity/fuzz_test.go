package setcapacity

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/quantity"
)

// FuzzNewReplicaShoots feeds the capacity annotation of the demo's ManagedSeedSet, and
// its template's shoots capacity and reserved, anything: the answer is never negative, an
// annotation that is a whole number of 0 or more wins and reads back the same written as
// digits, and one that is not is said, naming the annotation, its value and the set, while
// the answer is the set's without it.
func FuzzNewReplicaShoots(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "demo", "20-managedseedset.yaml"))
	require.NoError(f, err)
	demo := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(f, yaml.Unmarshal(data, demo))
	resources := demo.Spec.Template.Spec.Gardenlet.Config.Resources
	capacity, reserved := resources.Capacity[gardencorev1beta1.ResourceShoots], resources.Reserved[gardencorev1beta1.ResourceShoots]
	for _, annotation := range []string{"250", "0", "1k", "1e3", "2.5", "-5", "", "abc", "9223372036854775807", "9223372036854775808", "1Ei", "0.5k", " 40", "40m"} {
		f.Add(annotation, capacity.String(), reserved.String())
	}
	f.Add("50", "100", "")
	f.Add("x", "9e18", "-9e18")
	f.Fuzz(func(t *testing.T, annotation, capacity, reserved string) {
		set := demo.DeepCopy()
		set.Annotations = map[string]string{Annotation: annotation}
		if !setTemplate(set, capacity, reserved) {
			return // outside what the parser is given: not a quantity, or one whose exponent resource.ParseQuantity takes hours over
		}
		without := set.DeepCopy()
		delete(without.Annotations, Annotation)
		fromTemplate, err := NewReplicaShoots(without, nil, DefaultShoots)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, fromTemplate.Shoots, int64(0), "no capacity and reserved make a negative number of shoots")

		shoots, err := NewReplicaShoots(set, nil, DefaultShoots)
		if err != nil {
			var invalid *InvalidAnnotationError
			require.True(t, errors.As(err, &invalid))
			assert.Contains(t, err.Error(), "annotation "+Annotation+"="+strconv.Quote(annotation)+" of ManagedSeedSet garden/demo is not a whole number of shoots")
			assert.Equal(t, fromTemplate, shoots, "an annotation that is not a number is as if absent")
			return
		}
		assert.Equal(t, "annotation "+Annotation, shoots.Source)
		assert.GreaterOrEqual(t, shoots.Shoots, int64(0))
		set.Annotations[Annotation] = strconv.FormatInt(shoots.Shoots, 10)
		again, err := NewReplicaShoots(set, nil, DefaultShoots)
		require.NoError(t, err)
		assert.Equal(t, shoots, again)
	})
}

// setTemplate sets the shoots capacity and reserved of the set's gardenlet resources (an
// empty reserved: none), and reports whether both parse (with quantity.Parse, which leaves
// out the exponents that would hang this test in resource.ParseQuantity).
func setTemplate(set *seedmanagementv1alpha1.ManagedSeedSet, capacity, reserved string) bool {
	resources := set.Spec.Template.Spec.Gardenlet.Config.Resources
	c, err := quantity.Parse(capacity)
	if err != nil {
		return false
	}
	resources.Capacity = corev1.ResourceList{gardencorev1beta1.ResourceShoots: c}
	resources.Reserved = nil
	if reserved != "" {
		r, err := quantity.Parse(reserved)
		if err != nil {
			return false
		}
		resources.Reserved = corev1.ResourceList{gardencorev1beta1.ResourceShoots: r}
	}
	return true
}
