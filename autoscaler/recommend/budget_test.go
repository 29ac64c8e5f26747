package recommend

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

func TestHoldRemovals(t *testing.T) {
	decision := func(desired int32) Decision {
		return Decision{DesiredReplicas: desired, Reason: "utilization 20% below the target 70%",
			ScalingLimited: controllerutils.False(ReasonDesiredWithinRange, "within range")}
	}
	const why = `budgets[0] (seeds "1") allows 1 more seed of the set to be disrupted`
	tests := []struct {
		name        string
		desired     int32
		allowed     int
		wantDesired int32
		wantReason  controllerutils.Reason
	}{
		{"within the budget", 4, 1, 4, ReasonDesiredWithinRange},
		{"a scale-in beyond the budget is held", 2, 1, 4, ReasonDisruptionBudget},
		{"a budget of none holds every removal", 4, 0, 5, ReasonDisruptionBudget},
		{"a scale-out is not a removal", 7, 0, 7, ReasonDesiredWithinRange},
		{"no change", 5, 0, 5, ReasonDesiredWithinRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HoldRemovals(decision(tt.desired), 5, tt.allowed, why)
			assert.Equal(t, tt.wantDesired, got.DesiredReplicas)
			assert.Equal(t, tt.wantReason, got.ScalingLimited.Reason)
		})
	}
	held := HoldRemovals(decision(2), 5, 1, why)
	assert.Equal(t, `the autoscaler wants 2 replicas, but budgets[0] (seeds "1") allows 1 more seed of the set to be disrupted: holding at 4`, held.ScalingLimited.Message)
	assert.Equal(t, held.ScalingLimited.Message+" (utilization 20% below the target 70%)", held.Reason)
}
