package placement_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/placement"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// world is a fake ledger, decider, seed view and binder that write every step of the
// protocol to one log, each step marked with whether the ledger's lock was held.
type world struct {
	t        *testing.T
	locked   bool
	log      []string
	reserved map[string]string
	// room is how many shoots each seed takes; the decider picks the first seed with room
	// left, counting the reservations, as the scheduler's capacity filter does.
	room    map[string]int
	seeds   []*framework.SeedInfo
	noInput error
	bindErr error
}

func newWorld(t *testing.T, room map[string]int) *world {
	w := &world{t: t, reserved: map[string]string{}, room: room}
	for name := range room {
		w.seeds = append(w.seeds, &framework.SeedInfo{Seed: seedNamed(name)})
	}
	slices.SortFunc(w.seeds, func(a, b *framework.SeedInfo) int { return strings.Compare(a.Name, b.Name) })
	return w
}

func seedNamed(name string) *gardencorev1beta1.Seed {
	seed := &gardencorev1beta1.Seed{}
	seed.Name = name
	return seed
}

func (w *world) step(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if w.locked {
		s += " (locked)"
	}
	w.log = append(w.log, s)
}

func (w *world) Lock() {
	require.False(w.t, w.locked, "the lock is taken twice")
	w.step("lock")
	w.locked = true
}

func (w *world) Unlock() {
	require.True(w.t, w.locked, "the lock is released without being held")
	w.locked = false
	w.step("unlock")
}

func (w *world) Reserved(key string) (string, bool) {
	seed, ok := w.reserved[key]
	return seed, ok
}

func (w *world) Reserve(key, seed string) {
	w.step("reserve %s on %s", key, seed)
	w.reserved[key] = seed
}

func (w *world) Release(key string) {
	w.step("release %s", key)
	delete(w.reserved, key)
}

func (w *world) Decide(in *framework.Input, seeds []*framework.SeedInfo) framework.Result {
	names := make([]string, len(seeds))
	for i, s := range seeds {
		names[i] = s.Name
	}
	w.step("decide %s among %s", in.Shoot.Name, strings.Join(names, ","))
	res := framework.Result{Seeds: len(seeds)}
	for _, s := range seeds {
		if rej := w.Feasible(in, s); rej != nil {
			res.Rejections = append(res.Rejections, *rej)
			continue
		}
		res.Seed = s
		return res
	}
	return res
}

func (w *world) Feasible(_ *framework.Input, seed *framework.SeedInfo) *framework.Rejection {
	taken := 0
	for _, s := range w.reserved {
		if s == seed.Name {
			taken++
		}
	}
	if taken >= w.room[seed.Name] {
		return &framework.Rejection{Seed: seed.Name, Status: framework.Status{Reason: "Full", Message: "no room"}}
	}
	return nil
}

func (w *world) placer() *placement.Placer {
	return &placement.Placer{
		Ledger:  w,
		Decider: w,
		Input: func(_ context.Context, shoot *gardencorev1beta1.Shoot) (*framework.Input, error) {
			w.step("input %s", shoot.Name)
			if w.noInput != nil {
				return nil, w.noInput
			}
			return &framework.Input{Shoot: shoot}, nil
		},
		Seeds: func() []*framework.SeedInfo { return w.seeds },
		Seed: func(name string) (*framework.SeedInfo, bool) {
			i := slices.IndexFunc(w.seeds, func(s *framework.SeedInfo) bool { return s.Name == name })
			if i < 0 {
				return nil, false
			}
			return w.seeds[i], true
		},
		Bind: func(_ context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
			w.step("bind %s to %s", shoot.Name, seed)
			return w.bindErr
		},
	}
}

func TestPlaceDecidesAndReservesUnderTheLockAndBindsOutsideIt(t *testing.T) {
	errGone := errors.New("cloud profile gone")
	errConflict := errors.New("conflict")
	tests := []struct {
		name     string
		room     map[string]int
		reserved map[string]string
		opts     placement.Options
		noInput  error
		bindErr  error

		wantLog      []string
		wantDecision func(*testing.T, placement.Decision)
		wantErr      error
		wantReserved map[string]string
	}{{
		name: "binds the winner, its place reserved until the informer shows it",
		room: map[string]int{"a": 0, "b": 1},
		wantLog: []string{"input s", "lock", "decide s among a,b (locked)", "reserve p/s on b (locked)", "unlock",
			"bind s to b"},
		wantDecision: func(t *testing.T, d placement.Decision) {
			assert.Equal(t, "b", d.Seed())
			assert.NotNil(t, d.Input)
		},
		wantReserved: map[string]string{"p/s": "b"},
	}, {
		name:    "no seed takes it: nothing reserved, nothing bound",
		room:    map[string]int{"a": 0},
		wantLog: []string{"input s", "lock", "decide s among a (locked)", "unlock"},
		wantDecision: func(t *testing.T, d placement.Decision) {
			assert.Empty(t, d.Seed())
			assert.Equal(t, "0/1 seeds are available:\nFull: 1 seed(s): no room (a)", d.Why())
			assert.NotNil(t, d.Input, "pending-fit judges the sets with the input")
		},
		wantReserved: map[string]string{},
	}, {
		name:    "a failed bind gives its place back",
		room:    map[string]int{"a": 1},
		bindErr: errConflict,
		wantLog: []string{"input s", "lock", "decide s among a (locked)", "reserve p/s on a (locked)", "unlock",
			"bind s to a", "release p/s"},
		wantDecision: func(t *testing.T, d placement.Decision) { assert.Equal(t, "a", d.Seed()) },
		wantErr:      errConflict,
		wantReserved: map[string]string{},
	}, {
		name:     "a shoot placed a moment ago is not decided and reserved again",
		room:     map[string]int{"a": 2, "b": 2},
		reserved: map[string]string{"p/s": "b"},
		wantLog:  nil,
		wantDecision: func(t *testing.T, d placement.Decision) {
			assert.Equal(t, "b", d.Pending)
			assert.Empty(t, d.Seed())
		},
		wantReserved: map[string]string{"p/s": "b"},
	}, {
		name:    "a shoot that cannot be judged takes no lock",
		room:    map[string]int{"a": 1},
		noInput: errGone,
		wantLog: []string{"input s"},
		wantDecision: func(t *testing.T, d placement.Decision) {
			assert.ErrorIs(t, d.Unjudged, errGone)
			assert.Equal(t, "cloud profile gone", d.Why())
		},
		wantReserved: map[string]string{},
	}, {
		name: "a migration never goes back to the seed it leaves",
		room: map[string]int{"a": 1, "b": 1, "c": 1},
		opts: placement.Options{MigratingFrom: seedNamed("a"), LimitMigrationDistance: true},
		wantLog: []string{"input s", "lock", "decide s among b,c (locked)", "reserve p/s on b (locked)", "unlock",
			"bind s to b"},
		wantDecision: func(t *testing.T, d placement.Decision) {
			assert.Equal(t, "b", d.Seed())
			require.NotNil(t, d.Input)
			assert.Equal(t, "a", d.Input.MigratingFrom.Name, "the Migration filter judges the move from a")
			assert.True(t, d.Input.LimitMigrationDistance)
		},
		wantReserved: map[string]string{"p/s": "b"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.room)
			for k, v := range tt.reserved {
				w.reserved[k] = v
			}
			w.noInput, w.bindErr = tt.noInput, tt.bindErr

			d, err := w.placer().Place(context.Background(), builders.MakeShoot("p", "s").Obj(), tt.opts)

			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.wantLog, w.log)
			assert.False(t, w.locked, "the lock is released")
			assert.Equal(t, tt.wantReserved, w.reserved)
			tt.wantDecision(t, d)
		})
	}
}

// A trial places every shoot while the places taken by the shoots before it count, and
// gives them all back before the lock is released; a real reservation of the same shoot
// stays.
func TestTrialPlacesShootsTogetherAndGivesEveryPlaceBack(t *testing.T) {
	w := newWorld(t, map[string]int{"a": 1, "b": 2, "c": 1})
	w.reserved["p/y"] = "b" // placed by a worker a moment ago
	shoots := []*gardencorev1beta1.Shoot{
		builders.MakeShoot("p", "x").Obj(),
		builders.MakeShoot("p", "y").Obj(),
		builders.MakeShoot("p", "z").Obj(),
	}

	got := w.placer().Trial(context.Background(), shoots, placement.Options{MigratingFrom: seedNamed("c")})

	require.Len(t, got, 3)
	assert.Equal(t, "a", got[0].Seed())
	assert.Equal(t, "b", got[1].Seed(), "b has room for one more beside p/y's reservation")
	assert.Empty(t, got[2].Seed(), "x and y took the last places; c is the seed they leave")
	assert.Equal(t, "0/2 seeds are available:\nFull: 2 seed(s): no room (a, b)", got[2].Why())
	assert.Equal(t, []string{
		"input x", "input y", "input z",
		"lock",
		"decide x among a,b (locked)", "reserve placement-trial:p/x on a (locked)",
		"decide y among a,b (locked)", "reserve placement-trial:p/y on b (locked)",
		"decide z among a,b (locked)",
		"release placement-trial:p/x (locked)", "release placement-trial:p/y (locked)",
		"unlock",
	}, w.log, "nothing is bound")
	assert.Equal(t, map[string]string{"p/y": "b"}, w.reserved)
}

func TestTrialReportsShootsItCannotJudge(t *testing.T) {
	w := newWorld(t, map[string]int{"a": 1})
	w.noInput = errors.New("cloud profile gone")

	got := w.placer().Trial(context.Background(), []*gardencorev1beta1.Shoot{builders.MakeShoot("p", "x").Obj()}, placement.Options{})

	require.Len(t, got, 1)
	assert.EqualError(t, got[0].Unjudged, "cloud profile gone")
	assert.Equal(t, []string{"input x", "lock", "unlock"}, w.log)
}

// A check reads the seeds under the lock, so a reservation made meanwhile cannot slip in,
// and takes no place itself.
func TestCheckJudgesUnderTheLockAndReservesNothing(t *testing.T) {
	w := newWorld(t, map[string]int{"a": 1})
	w.reserved["p/other"] = "a"
	var rejection *framework.Rejection
	var missing *framework.SeedInfo
	err := w.placer().Check(context.Background(), builders.MakeShoot("p", "s").Obj(), func(v placement.View) {
		w.step("judge")
		require.NotNil(t, v.Input)
		assert.Equal(t, "s", v.Input.Shoot.Name)
		rejection = v.Decider.Feasible(v.Input, v.Seed("a"))
		missing = v.Seed("nope")
	})

	require.NoError(t, err)
	assert.Equal(t, []string{"input s", "lock", "judge (locked)", "unlock"}, w.log)
	require.NotNil(t, rejection, "the reservation of another shoot counts")
	assert.Equal(t, "no room", rejection.Message)
	assert.Nil(t, missing)
	assert.Equal(t, map[string]string{"p/other": "a"}, w.reserved)
}

func TestCheckWithoutInputJudgesNothing(t *testing.T) {
	w := newWorld(t, map[string]int{"a": 1})
	w.noInput = errors.New("cloud profile gone")

	err := w.placer().Check(context.Background(), builders.MakeShoot("p", "s").Obj(), func(placement.View) { w.step("judge") })

	assert.EqualError(t, err, "cloud profile gone")
	assert.Equal(t, []string{"input s"}, w.log)
}
