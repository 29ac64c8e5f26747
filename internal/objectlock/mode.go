package objectlock

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Mode is how the replicas of a controller share its objects.
type Mode string

const (
	// ModeLeaderElection means one elected replica does all the work (the default; with
	// --leader-elect=false a single replica).
	ModeLeaderElection Mode = "leader-election"
	// ModeObjectLocks means every replica works, each object under the lock of the one replica
	// reconciling it, so replicas scale out with an HPA.
	ModeObjectLocks Mode = "object-locks"
)

// Replicas are the flags of a controller that can run active-active.
type Replicas struct {
	// Mode is leader-election or object-locks.
	Mode Mode
	// Namespace holds the lock Leases and the replicas' pods: $POD_NAMESPACE by default.
	Namespace string
	// Holder is this replica's identity: $POD_NAME, else the host name.
	Holder string
	// LeaseDuration after which a lock a replica never released may be taken over.
	LeaseDuration time.Duration
	// CollectInterval between clean-ups of the locks of deleted objects.
	CollectInterval time.Duration
	// Instrument, when set, wraps the controller's own reconciler inside the lock, after
	// the responsibility check: what it sees runs exactly while the lock is held. Tests
	// use it to watch that no object is reconciled by two replicas at once.
	Instrument func(reconcile.Reconciler) reconcile.Reconciler
}

// AddFlags registers --replicas-mode and the object lock flags.
func (r *Replicas) AddFlags(fs *pflag.FlagSet) {
	holder := os.Getenv("POD_NAME")
	if holder == "" {
		holder, _ = os.Hostname()
	}
	fs.StringVar((*string)(&r.Mode), "replicas-mode", string(ModeLeaderElection),
		"How replicas share the work: leader-election (one replica works; see --leader-elect) or object-locks (every replica works, one per object, under a Lease per object).")
	fs.StringVar(&r.Namespace, "lock-namespace", os.Getenv("POD_NAMESPACE"), "Namespace of the object lock Leases and of the replicas' pods (object-locks mode); $POD_NAMESPACE by default.")
	fs.StringVar(&r.Holder, "lock-holder", holder, "This replica's name in the object locks: its pod name ($POD_NAME), the host name by default.")
	fs.DurationVar(&r.LeaseDuration, "lock-lease-duration", 2*time.Minute, "How long a lock whose holder never released it blocks other replicas (object-locks mode); longer than the slowest reconcile.")
	fs.DurationVar(&r.CollectInterval, "lock-collect-interval", 10*time.Minute, "Interval between clean-ups of the locks of deleted objects (object-locks mode).")
}

// Validate checks the flags together with --leader-elect.
func (r *Replicas) Validate(leaderElect bool) error {
	switch r.Mode {
	case ModeLeaderElection:
		return nil
	case ModeObjectLocks:
		if leaderElect {
			return errors.New("--replicas-mode=object-locks lets every replica work; drop --leader-elect (or use --replicas-mode=leader-election)")
		}
		if r.Namespace == "" {
			return errors.New("--replicas-mode=object-locks needs --lock-namespace (or $POD_NAMESPACE): the namespace of the lock Leases and the replicas' pods")
		}
		if r.Holder == "" {
			return errors.New("--replicas-mode=object-locks needs --lock-holder (or $POD_NAME): this replica's pod name")
		}
		if r.LeaseDuration <= 0 {
			return fmt.Errorf("--lock-lease-duration must be positive, e.g. 2m, not %s", r.LeaseDuration)
		}
		return nil
	default:
		return fmt.Errorf("--replicas-mode is %q; use leader-election or object-locks", r.Mode)
	}
}

// Wrap returns the reconciler a controller registers in place of inner: it logs busy
// workers and, in object-locks mode, reconciles an object only under its lock. (A
// controller that owns only some objects of its kind sets Reconciler.Responsible to skip
// the others from their metadata alone; every controller here owns all of its kind.) In object-locks mode it also adds the clean-up of the controller's
// locks of deleted objects to mgr. A nil Replicas wraps as leader-election mode.
func (r *Replicas) Wrap(mgr manager.Manager, controller string, kind schema.GroupVersionKind, workers int,
	inner reconcile.Reconciler) (reconcile.Reconciler, error) {
	if r != nil && r.Instrument != nil {
		inner = r.Instrument(inner)
	}
	w := &Reconciler{
		Name: controller, Inner: inner, Reader: mgr.GetClient(), Kind: kind,
		MaxConcurrentReconciles: max(workers, 1),
	}
	if r == nil || r.Mode != ModeObjectLocks {
		return w, nil
	}
	// Locks are read and written directly: a cache of every Lease and Pod of the cluster
	// would cost more than the few requests a lock takes.
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("creating the object lock client: %w", err)
	}
	w.APIReader = direct
	w.Locker = &Locker{
		Client: direct, Namespace: r.Namespace, Controller: controller, Holder: r.Holder, LeaseDuration: r.LeaseDuration,
	}
	if err := mgr.Add(&Collector{
		Client: direct, Namespace: r.Namespace, Controller: controller, Kind: kind, Interval: r.CollectInterval,
	}); err != nil {
		return nil, fmt.Errorf("adding the lock clean-up of %s: %w", controller, err)
	}
	return w, nil
}
