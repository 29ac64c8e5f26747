package autoscaler

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// FuzzPausedReplicas feeds the paused-replicas annotation anything: a whole number from 0 to
// the most replicas the API allows pauses the target at it, and reads back the same
// written as digits; anything else holds the target where it is and says so, naming the
// annotation and its value.
func FuzzPausedReplicas(f *testing.F) {
	for _, s := range []string{"3", "0", "", "-1", "three", "2147483647", "2147483648", " 3", "3.0", "+3", "0x10", "1e2", "1000", "1001"} {
		f.Add(s)
	}
	const current = 5
	decided := recommend.Decision{DesiredReplicas: 7, Reason: "decided"}
	f.Fuzz(func(t *testing.T, value string) {
		sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{
			Annotations: map[string]string{autoscalingv1alpha1.AnnotationPausedReplicas: value},
		}}
		d := pause(sa, current, decided)
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil || n < 0 || n > autoscalingv1alpha1.MaxReplicasLimit {
			assert.Equal(t, int32(current), d.DesiredReplicas, "held where it is")
			assert.Equal(t, recommend.ReasonInvalidPausedReplicas, d.ScalingActive.Reason)
			assert.Contains(t, d.ScalingActive.Message, "annotation "+autoscalingv1alpha1.AnnotationPausedReplicas+"="+strconv.Quote(value))
			return
		}
		assert.Equal(t, int32(n), d.DesiredReplicas)
		assert.Equal(t, recommend.ReasonScalingPaused, d.ScalingActive.Reason)
		sa.Annotations[autoscalingv1alpha1.AnnotationPausedReplicas] = strconv.Itoa(int(d.DesiredReplicas))
		assert.Equal(t, d, pause(sa, current, decided))
	})
}
