package framework

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestSelectorConvertsOncePerInput(t *testing.T) {
	in := &Input{}
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	first, err := in.Selector(ls)
	require.NoError(t, err)
	assert.True(t, first.Matches(labels.Set{"a": "b"}))
	second, err := in.Selector(ls)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Len(t, in.selectors, 1, "the second call reuses the conversion")

	invalid := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	_, err = in.Selector(invalid)
	require.Error(t, err)
	_, again := in.Selector(invalid)
	assert.Equal(t, err, again, "a conversion error is remembered too")
}
