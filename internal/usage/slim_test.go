package usage

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestSlimShootsOutside(t *testing.T) {
	transform := SlimShootsOutside([]string{"garden"})
	tenant := builders.MakeShoot("garden-dev", "t-1").SeedName("seed-b").StatusSeedName("seed-a").Obj()
	tenant.Labels = map[string]string{"team": "x"}
	tenant.Annotations = map[string]string{"note": "long text"}
	tenant.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "tenant"}}
	tenant.UID, tenant.ResourceVersion, tenant.Generation = "uid-1", "42", 3
	tenant.Status.LastOperation = &gardencorev1beta1.LastOperation{Description: "a long description"}

	out, err := transform(tenant)
	require.NoError(t, err)
	record, ok := out.(*Record)
	require.True(t, ok, "a tenant's shoot is cached as a record, not a %T", out)
	slim := record.Expand().(*gardencorev1beta1.Shoot)
	assert.Equal(t, []string{"seed-b", "seed-a"}, SeedNames(slim), "counted on both seeds while it migrates, as before")
	assert.Equal(t, Key(tenant), Key(slim))
	assert.Equal(t, "42", slim.ResourceVersion)
	assert.EqualValues(t, "uid-1", slim.UID)
	assert.EqualValues(t, 3, slim.Generation)
	assert.Nil(t, slim.Labels)
	assert.Nil(t, slim.Annotations)
	assert.Nil(t, slim.ManagedFields)
	assert.Nil(t, slim.Status.LastOperation)
	assert.Empty(t, slim.Spec.Region)

	replica := builders.MakeShoot("garden", "set-0").SeedName("soil").Obj()
	replica.Labels = map[string]string{"seedscaler.io/set": "set"}
	replica.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "set-controller"}}
	replica.Spec.Purpose = ptr.To(gardencorev1beta1.ShootPurposeInfrastructure)
	out, err = transform(replica)
	require.NoError(t, err)
	kept := out.(*gardencorev1beta1.Shoot)
	assert.Equal(t, "set", kept.Labels["seedscaler.io/set"], "a shoot where seeds are managed stays whole")
	assert.Equal(t, gardencorev1beta1.ShootPurposeInfrastructure, *kept.Spec.Purpose)
	assert.Nil(t, kept.ManagedFields)

	everything := SlimShootsOutside(nil)
	out, err = everything(builders.MakeShoot("garden-dev", "t-2").Provider("gcp", "eu").Obj())
	require.NoError(t, err)
	assert.Equal(t, "eu", out.(*gardencorev1beta1.Shoot).Spec.Region, "without namespaces every shoot stays whole")

	tombstone := "not a shoot"
	out, err = transform(tombstone)
	require.NoError(t, err)
	assert.Equal(t, tombstone, out)
}

// Shoots decoded one by one carry strings of their own; their slim forms share the
// strings many shoots repeat, and a copy of one gets pointers of its own again.
func TestCountedSharesWhatShootsRepeat(t *testing.T) {
	decode := func(name string) *gardencorev1beta1.Shoot {
		var s gardencorev1beta1.Shoot
		require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot",`+
			`"metadata":{"name":"`+name+`","namespace":"garden-dev"},"spec":{"seedName":"seed-a"},"status":{"seedName":"seed-a"}}`), &s))
		return &s
	}
	one, other := decode("one"), decode("other")
	require.NotSame(t, one.Spec.SeedName, other.Spec.SeedName)
	require.NotSame(t, unsafe.StringData(one.Namespace), unsafe.StringData(other.Namespace))

	a, b := Counted(one).Expand().(*gardencorev1beta1.Shoot), Counted(other).Expand().(*gardencorev1beta1.Shoot)
	assert.Equal(t, "seed-a", *a.Spec.SeedName)
	assert.Same(t, a.Spec.SeedName, b.Spec.SeedName, "one pointer per seed name")
	assert.Same(t, a.Spec.SeedName, a.Status.SeedName)
	assert.Same(t, unsafe.StringData(a.Namespace), unsafe.StringData(b.Namespace), "one copy of a namespace")
	assert.Equal(t, "one", a.Name)

	copied := a.DeepCopy()
	assert.NotSame(t, a.Spec.SeedName, copied.Spec.SeedName, "a copy may be written to")
	assert.Nil(t, InternPointer(nil))
}
