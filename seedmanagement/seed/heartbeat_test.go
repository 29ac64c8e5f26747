package seed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

func TestGardenletReady(t *testing.T) {
	renewed := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	grace := 40 * time.Second
	cases := []struct {
		name        string
		renewTime   *time.Time
		now         time.Time
		wantStatus  metav1.ConditionStatus
		wantReason  controllerutils.Reason
		wantRecheck time.Duration
	}{
		{"no lease", nil, renewed, metav1.ConditionUnknown, ReasonLeaseNotFound, 0},
		{"just renewed", ptr.To(renewed), renewed, metav1.ConditionTrue, ReasonHeartbeatFresh, 40 * time.Second},
		{"within grace", ptr.To(renewed), renewed.Add(15 * time.Second), metav1.ConditionTrue, ReasonHeartbeatFresh, 25 * time.Second},
		{"one nanosecond before the deadline", ptr.To(renewed), renewed.Add(grace - time.Nanosecond), metav1.ConditionTrue, ReasonHeartbeatFresh, time.Nanosecond},
		{"exactly at the deadline is stale", ptr.To(renewed), renewed.Add(grace), metav1.ConditionUnknown, ReasonSeedStatusUnknown, 0},
		{"long stale", ptr.To(renewed), renewed.Add(time.Hour), metav1.ConditionUnknown, ReasonSeedStatusUnknown, 0},
		{"renewal in the future (clock skew) is fresh", ptr.To(renewed.Add(5 * time.Second)), renewed, metav1.ConditionTrue, ReasonHeartbeatFresh, 45 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := GardenletReady(tc.renewTime, tc.now, grace)
			assert.Equal(t, tc.wantStatus, got.Status)
			assert.Equal(t, tc.wantReason, got.Reason)
			assert.Equal(t, tc.wantRecheck, got.RecheckAfter)
			assert.NotEmpty(t, got.Message)
		})
	}
}
