package autoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
)

// Status keeps a drain until the budget has paid for its shoots, and a canceled one for an
// hour, so that both still hold the next choice back after a restart.
func TestRecentDrainsKeepWhatStillHoldsTheNextDrainBack(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	drain := func(seed string, ago time.Duration, shoots int32, canceled string) autoscalingv1alpha1.ConsolidationDrain {
		return autoscalingv1alpha1.ConsolidationDrain{Seed: seed, Shoots: ptr.To(shoots), StartTime: &metav1.Time{Time: now.Add(-ago)}, Canceled: canceled}
	}
	drains := []autoscalingv1alpha1.ConsolidationDrain{
		drain("paid", 3*time.Hour, 40, ""),                 // 2 h of a budget of 20 an hour: paid at 11:00
		drain("canceled-long-ago", 2*time.Hour, 0, "gone"), // canceled, and more than an hour ago
		drain("canceled", 30*time.Minute, 0, "stuck"),      // canceled within the hour
		drain("unpaid", 90*time.Minute, 35, ""),            // paid at 12:15
		{Seed: "no-start", Shoots: ptr.To[int32](5)},
	}
	got := recentDrains(drains, 20, now)
	var seeds []string
	for _, d := range got {
		seeds = append(seeds, d.Seed)
	}
	assert.Equal(t, []string{"canceled", "unpaid"}, seeds)

	many := make([]autoscalingv1alpha1.ConsolidationDrain, 0, 100)
	for i := range 100 {
		many = append(many, drain("s", time.Duration(100-i)*time.Second, 1, "stuck"))
	}
	kept := recentDrains(many, 20, now)
	assert.Len(t, kept, maxRememberedDrains, "no more than status holds")
	assert.Equal(t, many[len(many)-1], kept[len(kept)-1], "the newest are kept")
}
