package seed

import (
	"fmt"
	"time"

	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// Reasons of the GardenletReady condition this controller writes.
const (
	// ReasonHeartbeatFresh: the heartbeat Lease was renewed within the grace period.
	ReasonHeartbeatFresh controllerutils.Reason = "GardenletHeartbeatFresh"
	// ReasonSeedStatusUnknown: the heartbeat Lease is older than the grace period. The name
	// is Gardener's, so alerts written against Gardener keep matching.
	ReasonSeedStatusUnknown controllerutils.Reason = "SeedStatusUnknown"
	// ReasonLeaseNotFound: the seed has no heartbeat Lease (or one never renewed): its
	// gardenlet has not reported yet, or the Lease was removed.
	ReasonLeaseNotFound controllerutils.Reason = "LeaseNotFound"
)

// Heartbeat is the GardenletReady condition a Lease asks for at one instant, and when the
// answer changes by itself if nothing else happens.
type Heartbeat struct {
	controllerutils.Outcome
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
		return Heartbeat{Outcome: controllerutils.Unknown(ReasonLeaseNotFound,
			fmt.Sprintf("The seed has no renewed heartbeat Lease in namespace %s: its gardenlet has not reported yet.", LeaseNamespace))}
	}
	deadline := renewTime.Add(grace)
	if now.Before(deadline) {
		return Heartbeat{
			// No renew time in the message: it would rewrite the status on every heartbeat.
			Outcome: controllerutils.True(ReasonHeartbeatFresh,
				fmt.Sprintf("The gardenlet renews its heartbeat Lease within the grace period of %s.", grace)),
			RecheckAfter: deadline.Sub(now),
		}
	}
	return Heartbeat{Outcome: controllerutils.Unknown(ReasonSeedStatusUnknown,
		fmt.Sprintf("Gardenlet stopped posting seed status: its heartbeat Lease was last renewed at %s, more than %s ago.",
			renewTime.UTC().Format(time.RFC3339), grace))}
}
