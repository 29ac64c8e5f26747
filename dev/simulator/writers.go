package simulator

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// maxWriters bounds Configuration.Writers.
const maxWriters = 256

// forEach calls fn for 0..n-1: one after the other with one writer, else on up to
// cfg.Writers goroutines at once. fn may write to the apiserver; what it reads or changes of
// the simulator's own state goes through the locked accessors below.
func (s *Simulator) forEach(n int, fn func(i int)) {
	if s.cfg.Writers <= 1 || n <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(s.cfg.Writers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// errorList collects the errors of concurrent calls.
type errorList struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorList) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// float64 draws from the simulator's random source.
func (s *Simulator) float64() float64 {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.rand.Float64()
}

// jittered draws a delay of d (simulated) ± the configured jitter, in wall time.
func (s *Simulator) jittered(d time.Duration) time.Duration {
	return s.real(Jittered(d, *s.cfg.Shoots.Jitter, s.float64()))
}

// operationDueOf is when the shoot's operation in flight ends; zero when none is known.
func (s *Simulator) operationDueOf(uid types.UID) (time.Time, bool) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	t, ok := s.operationDue[uid]
	return t, ok
}

// setOperationDue records when the shoot's operation ends; the zero time forgets it.
func (s *Simulator) setOperationDue(uid types.UID, t time.Time) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if t.IsZero() {
		delete(s.operationDue, uid)
		return
	}
	s.operationDue[uid] = t
}

// deletionDueOf is when the deleted shoot's infrastructure is gone: the recorded time, or
// now plus a drawn delete delay, recorded.
func (s *Simulator) deletionDueOf(uid types.UID, now time.Time) time.Time {
	s.stateMu.Lock()
	due, ok := s.deletionDue[uid]
	s.stateMu.Unlock()
	if ok {
		return due
	}
	due = now.Add(s.jittered(s.cfg.Shoots.DeleteDelay.Duration))
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	s.deletionDue[uid] = due
	return due
}

// forgetDeletion drops the deleted shoot's due time once it is gone.
func (s *Simulator) forgetDeletion(uid types.UID) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	delete(s.deletionDue, uid)
}
