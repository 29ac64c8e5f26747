//go:build integration

package autoscaler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// The kube-apiserver refuses a headroom out of its bounds, naming the field and the fix.
func TestHeadroomIsValidated(t *testing.T) {
	f := newFixture(t, "headroom-validation")
	sa := f.createAutoscaler(1, 10, 50, nil)
	const outOfBounds = "spec.headroom.shoots must be 1 to 10000 free shoot slots, e.g. shoots: 20; to keep no headroom remove spec.headroom"
	for i, tt := range []struct {
		shoots  int32
		wantErr string
	}{
		{-5, outOfBounds},
		{0, "spec.headroom.shoots: Required value"}, // 0 is left out, as unset
		{1, ""},
		{10000, ""},
		{10001, outOfBounds},
	} {
		t.Run(fmt.Sprint(tt.shoots), func(t *testing.T) {
			obj := sa.DeepCopy()
			obj.ObjectMeta = metav1.ObjectMeta{Name: fmt.Sprintf("headroom-%d", i), Namespace: f.ns}
			obj.Spec.Headroom = &autoscalingv1alpha1.Headroom{Shoots: tt.shoots}
			err := env.Client.Create(f.ctx, obj)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// A headroom of free shoot slots holds seeds the utilization target would remove, and adds
// one when a burst leaves fewer slots free, while the utilization is within its tolerance.
func TestHeadroomKeepsFreeShootSlots(t *testing.T) {
	f := newFixture(t, "headroom")
	set := f.createSet(3, seedsOf100)
	for i, shoots := range []float64{80, 80, 0} {
		f.addReplica(set, replicaName(f.name, i), shoots, false)
	}
	f.metrics.setPending(f.name, 0)
	sa := f.createAutoscaler(1, 10, 90, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	sa.Spec.Headroom = &autoscalingv1alpha1.Headroom{Shoots: 50}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.start(false)

	// 160 shoots at 90% need 2 seeds, but 2 seeds leave 40 slots free, fewer than 50.
	f.waitForTargets("53%/90%")
	f.waitForStatus("the headroom's replicas", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Headroom != nil && st.Headroom.Replicas != nil
	})
	st := f.get().Status
	assert.Equal(t, &autoscalingv1alpha1.HeadroomStatus{
		FreeShoots: ptr.To[int32](140), Replicas: ptr.To[int32](3),
		Message: "a headroom of 50 shoots needs 3 replicas: 140 free on 3 ready seeds, 100 shoots per seed added or removed",
	}, st.Headroom)
	assert.Equal(t, int32(3), st.DesiredReplicas)
	assert.Equal(t, int32(3), f.specReplicas())

	// A burst of 95 shoots on the empty seed: 255 of 300 is within the tolerance of 90%,
	// but only 45 slots are free.
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 2), 95)
	f.clock.Step(15 * time.Second)
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	assert.Equal(t, []string{"3 → 4: a headroom of 50 shoots needs 4 replicas: 45 free on 3 ready seeds, 100 shoots per seed added or removed"},
		f.eventsOnceThere("SuccessfulRescale", 1))
	// The status is written after the scale: wait for it rather than read it once.
	f.waitForStatus("45 free shoots", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Headroom != nil && ptr.Deref(st.Headroom.FreeShoots, -1) == 45
	})

	// Without spec.headroom, status has none.
	f.updateAutoscaler(func(sa *autoscalingv1alpha1.SeedAutoscaler) { sa.Spec.Headroom = nil })
	f.waitForStatus("no headroom", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool { return st.Headroom == nil })
}
