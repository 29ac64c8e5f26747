package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// The cloud profile of a shoot is found as gardener-scheduler finds it: spec.cloudProfile
// first, then the deprecated spec.cloudProfileName; a NamespacedCloudProfile in the shoot's
// namespace by its merged status, or its parent's spec while that is not written.
func TestCloudProfileOf(t *testing.T) {
	selector := func(label string) *gardencorev1beta1.SeedSelector {
		return &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{label: "true"}}}
	}
	profile := func(name, label string) *gardencorev1beta1.CloudProfile {
		return &gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: gardencorev1beta1.CloudProfileSpec{Type: "gcp", Regions: []gardencorev1beta1.Region{{Name: "europe-west1"}}, SeedSelector: selector(label)}}
	}
	namespaced := func(name, parent string, merged *gardencorev1beta1.CloudProfileSpec) *gardencorev1beta1.NamespacedCloudProfile {
		return &gardencorev1beta1.NamespacedCloudProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: name},
			Spec:   gardencorev1beta1.NamespacedCloudProfileSpec{Parent: gardencorev1beta1.CloudProfileReference{Kind: gardencorev1beta1.CloudProfileReferenceKindCloudProfile, Name: parent}},
			Status: gardencorev1beta1.NamespacedCloudProfileStatus{CloudProfileSpec: merged}}
	}
	merged := profile("x", "merged").Spec
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		profile("gcp", "gcp"), profile("legacy", "legacy"),
		namespaced("team", "gcp", &merged), namespaced("fresh", "gcp", nil), namespaced("orphan", "gone", nil),
	).Build()
	ns := gardencorev1beta1.CloudProfileReferenceKindNamespacedCloudProfile

	cases := []struct {
		name          string
		shoot         *gardencorev1beta1.Shoot
		wantName      string
		wantNamespace string
		wantSelector  string // the label of the seed selector the profile carries
		wantErr       string
	}{
		{"cloudProfileName", builders.MakeShoot("garden-dev", "a").CloudProfile("legacy").Obj(), "legacy", "", "legacy", ""},
		{"cloudProfile of kind CloudProfile", builders.MakeShoot("garden-dev", "a").CloudProfileRef(gardencorev1beta1.CloudProfileReferenceKindCloudProfile, "gcp").Obj(), "gcp", "", "gcp", ""},
		{"cloudProfile without kind is a CloudProfile", builders.MakeShoot("garden-dev", "a").CloudProfileRef("", "gcp").Obj(), "gcp", "", "gcp", ""},
		{"cloudProfile wins over cloudProfileName", func() *gardencorev1beta1.Shoot {
			s := builders.MakeShoot("garden-dev", "a").CloudProfileRef(gardencorev1beta1.CloudProfileReferenceKindCloudProfile, "gcp").Obj()
			s.Spec.CloudProfileName = ptr.To("legacy")
			return s
		}(), "gcp", "", "gcp", ""},
		{"NamespacedCloudProfile: its merged spec under its own name", builders.MakeShoot("garden-dev", "a").CloudProfileRef(ns, "team").Obj(), "team", "garden-dev", "merged", ""},
		{"NamespacedCloudProfile not merged yet: the parent's spec", builders.MakeShoot("garden-dev", "a").CloudProfileRef(ns, "fresh").Obj(), "fresh", "garden-dev", "gcp", ""},
		{"NamespacedCloudProfile of another namespace", builders.MakeShoot("garden-ops", "a").CloudProfileRef(ns, "team").Obj(), "", "", "",
			"NamespacedCloudProfile garden-ops/team of the shoot (spec.cloudProfile) does not exist"},
		{"NamespacedCloudProfile whose parent is gone", builders.MakeShoot("garden-dev", "a").CloudProfileRef(ns, "orphan").Obj(), "", "", "",
			"CloudProfile gone that NamespacedCloudProfile garden-dev/orphan derives from (spec.parent) does not exist"},
		{"missing CloudProfile", builders.MakeShoot("garden-dev", "a").CloudProfile("nope").Obj(), "", "", "", "CloudProfile nope of the shoot does not exist"},
		{"no profile", func() *gardencorev1beta1.Shoot {
			s := builders.MakeShoot("garden-dev", "a").Obj()
			s.Spec.CloudProfileName = nil
			return s
		}(), "", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := CloudProfileOf(context.Background(), c, tc.shoot)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			if tc.wantName == "" {
				assert.Nil(t, cp)
				return
			}
			require.NotNil(t, cp)
			assert.Equal(t, tc.wantName, cp.Name, "the region config is looked up by this name")
			assert.Equal(t, tc.wantNamespace, cp.Namespace)
			require.NotNil(t, cp.Spec.SeedSelector)
			assert.Equal(t, map[string]string{tc.wantSelector: "true"}, cp.Spec.SeedSelector.MatchLabels)
		})
	}
}
