package managedseed

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func assertResources(t *testing.T, want, got corev1.ResourceList, what string) {
	t.Helper()
	assert.Len(t, got, len(want), "%s: %v", what, got)
	for name, q := range want {
		g, ok := got[name]
		if assert.True(t, ok, "%s lacks %s", what, name) {
			assert.Zero(t, q.Cmp(g), "%s of %s: want %s, got %s", what, name, q.String(), g.String())
		}
	}
}

func resourceMust(s string) resource.Quantity { return resource.MustParse(s) }

func TestParseDefaultCapacity(t *testing.T) {
	cases := []struct {
		value string
		want  corev1.ResourceList
	}{
		{"250", list("shoots", "250")},
		{"shoots=100", list("shoots", "100")},
		{"shoots=100, persistent-volumes=1k", list("shoots", "100", "persistent-volumes", "1k")},
		{"80,persistent-volumes=200", list("shoots", "80", "persistent-volumes", "200")},
		{"", corev1.ResourceList{}},
	}
	for _, tc := range cases {
		got, err := ParseDefaultCapacity(tc.value)
		if assert.NoError(t, err, tc.value) {
			assertResources(t, tc.want, got, tc.value)
		}
	}
	for _, bad := range []string{"many", "shoots=-1", "=3", "250,shoots=10", "shoots=92E3372036854775807"} {
		_, err := ParseDefaultCapacity(bad)
		assert.Error(t, err, bad)
	}
}
