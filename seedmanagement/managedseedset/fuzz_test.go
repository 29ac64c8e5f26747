package managedseedset

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// FuzzParseOrdinal feeds the reader of replica names any set and object name: a name it
// takes is exactly the replica name of its ordinal, and every replica name reads back as
// its ordinal.
func FuzzParseOrdinal(f *testing.F) {
	for _, s := range [][2]string{{"crazy-botany", "crazy-botany-0"}, {"crazy-botany", "crazy-botany-12"}, {"a", "a-01"}, {"a", "a--1"},
		{"a", "a-"}, {"a-1", "a-1-2"}, {"a", "a-2147483648"}, {"a", "a-+1"}, {"", "-3"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, setName, name string) {
		if ordinal, ok := parseOrdinal(setName, name); ok {
			assert.GreaterOrEqual(t, ordinal, int32(0))
			assert.Equal(t, name, replicaName(setName, ordinal), "only the replica name of an ordinal reads as one")
		}
		ordinal := int32(crc32.ChecksumIEEE([]byte(name)) >> 1)
		got, ok := parseOrdinal(setName, replicaName(setName, ordinal))
		assert.True(t, ok)
		assert.Equal(t, ordinal, got)
	})
}

// FuzzDecodeRevision feeds the reader of a set's ControllerRevisions any data: what it
// refuses names the revision, and the templates it reads are stored and read back the same.
func FuzzDecodeRevision(f *testing.F) {
	for _, name := range []string{"managedseedset.yaml", "demo/20-managedseedset.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
		require.NoError(f, err)
		set := &seedmanagementv1alpha1.ManagedSeedSet{}
		require.NoError(f, yaml.Unmarshal(data, set))
		raw, err := templatesOf(set).raw()
		require.NoError(f, err)
		f.Add(raw)
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"template":{"spec":{"shoot":7}}}`, `{"shootTemplate":{"spec":{"provider":{"workers":[{"minimum":"x"}]}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "crazy-botany-5d4f8"}, Data: runtime.RawExtension{Raw: raw}}
		d, err := decodeRevision(rev)
		if err != nil {
			assert.Contains(t, err.Error(), "decoding ControllerRevision garden/crazy-botany-5d4f8: ")
			return
		}
		stored, err := d.raw()
		require.NoError(t, err)
		rev.Data.Raw = stored
		again, err := decodeRevision(rev)
		require.NoError(t, err)
		assert.True(t, apiequality.Semantic.DeepEqual(d, again), "stored as %s", stored)
	})
}
