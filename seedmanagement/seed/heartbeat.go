package seed

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reason is the reason of the GardenletReady condition this controller writes.
type Reason string

const (
	// ReasonHeartbeatFresh: the heartbeat Lease was renewed within the grace period.
	ReasonHeartbeatFresh Reason = "GardenletHeartbeatFresh"
	// ReasonSeedStatusUnknown: the heartbeat Lease is older than the grace period. The name
	// is Gardener's, so alerts written against Gardener keep matching.
	ReasonSeedStatusUnknown Reason = "SeedStatusUnknown"
	// ReasonLeaseNotFound: the seed has no heartbeat Lease (or one never renewed): its
	// gardenlet has not reported yet, or the Lease was removed.
	ReasonLeaseNotFound Reason = "LeaseNotFound"
)

// Heartbeat is the GardenletReady condition a Lease asks for at one instant, and when the
// answer changes by itself if nothing else happens.
type Heartbeat struct {
	Status  metav1.ConditionStatus
	Reason  Reason
	Message string
	// RecheckAfter is how long until a fresh heartbeat goes stale; zero when the
	// condition cannot change without a new renewal.
	RecheckAfter time.Duration
}

// GardenletReady decides the GardenletReady condition from the Lease's renew time (nil: no
// Lease, or one never renewed), the time now and the grace period. A heartbeat is fresh
// while now is before renewTime + grace, and stale from that instant on, so a recheck
// scheduled for exactly RecheckAfter always sees it stale. A renew time in the future
// (clock skew between gardenlet and controller) counts as fresh.
func GardenletReady(renewTime *time.Time, now time.Time, grace time.Duration) Heartbeat {
	if renewTime == nil {
		return Heartbeat{
			Status:  metav1.ConditionUnknown,
			Reason:  ReasonLeaseNotFound,
			Message: fmt.Sprintf("The seed has no renewed heartbeat Lease in namespace %s: its gardenlet has not reported yet.", LeaseNamespace),
		}
	}
	deadline := renewTime.Add(grace)
	if now.Before(deadline) {
		return Heartbeat{
			Status: metav1.ConditionTrue,
			Reason: ReasonHeartbeatFresh,
			// No renew time in the message: it would rewrite the status on every heartbeat.
			Message:      fmt.Sprintf("The gardenlet renews its heartbeat Lease within the grace period of %s.", grace),
			RecheckAfter: deadline.Sub(now),
		}
	}
	return Heartbeat{
		Status: metav1.ConditionUnknown,
		Reason: ReasonSeedStatusUnknown,
		Message: fmt.Sprintf("Gardenlet stopped posting seed status: its heartbeat Lease was last renewed at %s, more than %s ago.",
			renewTime.UTC().Format(time.RFC3339), grace),
	}
}
