package usage

import (
	"testing"

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
	slim := out.(*gardencorev1beta1.Shoot)
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
