package recommend

import (
	"fmt"

	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// HoldRemovals keeps a scale-in within what the disruption budgets of reason
// EmptySeedRemoval allow: at most allowed seeds fewer than current. why names the budget
// that holds it. A decision that removes no more than allowed is left as it is.
func HoldRemovals(d Decision, current int32, allowed int, why string) Decision {
	wanted := d.DesiredReplicas
	if wanted >= current || int(current-wanted) <= allowed {
		return d
	}
	d.DesiredReplicas = current - int32(allowed)
	message := fmt.Sprintf("the autoscaler wants %d replicas, but %s: holding at %d", wanted, why, d.DesiredReplicas)
	d.Reason = message + " (" + d.Reason + ")"
	d.ScalingLimited = controllerutils.True(ReasonDisruptionBudget, message)
	return d
}
