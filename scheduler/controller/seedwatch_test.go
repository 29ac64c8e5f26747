package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestSeedMayTakeMore(t *testing.T) {
	base := func() *gardencorev1beta1.Seed {
		return builders.MakeSeed("a").Labels("env", "prod").Allocatable(10).Ready().Obj()
	}
	cases := []struct {
		name   string
		change func(*gardencorev1beta1.Seed)
		want   bool
	}{
		{"nothing", func(*gardencorev1beta1.Seed) {}, false},
		{"a heartbeat: the condition's times and message", func(s *gardencorev1beta1.Seed) {
			c := meta.FindStatusCondition(s.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
			c.LastTransitionTime, c.Message = metav1.Now(), "renewed"
		}, false},
		{"another status field", func(s *gardencorev1beta1.Seed) { s.Status.ObservedGeneration++ }, false},
		{"turns not ready", func(s *gardencorev1beta1.Seed) {
			meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionFalse})
		}, true},
		{"a new condition", func(s *gardencorev1beta1.Seed) {
			meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: "BackupBucketsReady", Status: metav1.ConditionTrue})
		}, true},
		{"more allocatable", func(s *gardencorev1beta1.Seed) {
			s.Status.Allocatable = builders.MakeSeed("a").Allocatable(20).Obj().Status.Allocatable
		}, true},
		{"its spec (taints, visibility)", func(s *gardencorev1beta1.Seed) { s.Generation++ }, true},
		{"its labels", func(s *gardencorev1beta1.Seed) { s.Labels = map[string]string{"env": "dev"} }, true},
		{"its emergency-stop annotation changes", func(s *gardencorev1beta1.Seed) {
			s.Annotations = map[string]string{gardencorev1beta1.AnnotationEmergencyStopShootReconciliations: "true"}
		}, true},
		{"another annotation", func(s *gardencorev1beta1.Seed) { s.Annotations = map[string]string{"note": "x"} }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, cur := base(), base()
			c.change(cur)
			assert.Equal(t, c.want, seedMayTakeMore(old, cur))
		})
	}
}
