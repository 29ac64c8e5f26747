package v1beta1

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestCloudProfileReferenceOf(t *testing.T) {
	cases := []struct {
		name string
		spec ShootSpec
		want *CloudProfileReference
	}{
		{"none", ShootSpec{}, nil},
		{"empty name", ShootSpec{CloudProfileName: ptr.To("")}, nil},
		{"cloudProfileName", ShootSpec{CloudProfileName: ptr.To("gcp")}, &CloudProfileReference{Kind: CloudProfileReferenceKindCloudProfile, Name: "gcp"}},
		{"cloudProfile without kind", ShootSpec{CloudProfile: &CloudProfileReference{Name: "gcp"}}, &CloudProfileReference{Kind: CloudProfileReferenceKindCloudProfile, Name: "gcp"}},
		{"cloudProfile wins", ShootSpec{CloudProfileName: ptr.To("gcp"), CloudProfile: &CloudProfileReference{Kind: CloudProfileReferenceKindNamespacedCloudProfile, Name: "team"}},
			&CloudProfileReference{Kind: CloudProfileReferenceKindNamespacedCloudProfile, Name: "team"}},
	}
	for _, c := range cases {
		shoot := &Shoot{Spec: c.spec}
		assert.Equal(t, c.want, CloudProfileReferenceOf(shoot), c.name)
	}
	ref := &CloudProfileReference{Name: "gcp"}
	CloudProfileReferenceOf(&Shoot{Spec: ShootSpec{CloudProfile: ref}})
	assert.Empty(t, ref.Kind, "the shoot is not changed")
}

func TestShootReconciliationsDisabled(t *testing.T) {
	seed := func(annotations map[string]string) *Seed {
		return &Seed{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
	}
	assert.False(t, ShootReconciliationsDisabled(nil))
	assert.False(t, ShootReconciliationsDisabled(seed(nil)))
	assert.False(t, ShootReconciliationsDisabled(seed(map[string]string{AnnotationEmergencyStopShootReconciliations: "false"})))
	assert.False(t, ShootReconciliationsDisabled(seed(map[string]string{AnnotationEmergencyStopShootReconciliations: "True"})), "only \"true\", as Gardener")
	assert.True(t, ShootReconciliationsDisabled(seed(map[string]string{AnnotationEmergencyStopShootReconciliations: "true"})))
}
