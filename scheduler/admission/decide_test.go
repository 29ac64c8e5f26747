package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestBindingOf(t *testing.T) {
	unbound := builders.MakeShoot("p", "a").Obj()
	onA := builders.MakeShoot("p", "a").SeedName("a").Obj()
	onB := builders.MakeShoot("p", "a").SeedName("b").Obj()
	migratingBackToA := builders.MakeShoot("p", "a").SeedName("b").StatusSeedName("a").Obj()
	deleting := builders.MakeShoot("p", "a").SeedName("a").Obj()
	deleting.DeletionTimestamp = &metav1.Time{}
	cases := []struct {
		name        string
		old, shoot  *gardencorev1beta1.Shoot
		binds       bool
		wantCounted bool
		wantFrom    string
	}{
		{"create without seed", nil, unbound, false, false, ""},
		{"create with seed", nil, onA, true, false, ""},
		{"update sets the seed", unbound, onA, true, false, ""},
		{"update leaves the seed", onA, onA, false, false, ""},
		{"update changes the seed", onB, onA, true, false, "b"},
		{"update takes the seed away", onA, unbound, false, false, ""},
		{"migration goes back to the seed the shoot still counts on", migratingBackToA, onA, true, true, "b"},
		{"a shoot being deleted", unbound, deleting, false, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, ok := BindingOf(c.old, c.shoot)
			assert.Equal(t, c.binds, ok)
			if ok {
				assert.Equal(t, "a", b.Seed)
				assert.Equal(t, c.wantCounted, b.Counted)
				assert.Equal(t, c.wantFrom, b.From)
			}
		})
	}
}

func TestCheckJudgesWithTheSchedulersFilters(t *testing.T) {
	profile, err := plugins.NewProfile(&config.SchedulerConfiguration{Strategy: config.SameRegion})
	require.NoError(t, err)
	deleting := builders.MakeSeed("deleting").Ready().Obj()
	deleting.DeletionTimestamp = &metav1.Time{}
	seeds := map[string]*gardencorev1beta1.Seed{
		"fits":         builders.MakeSeed("fits").Ready().Allocatable(2).Obj(),
		"deleting":     deleting,
		"not-ready":    builders.MakeSeed("not-ready").Ready().Condition(gardencorev1beta1.SeedGardenletReady, metav1.ConditionFalse).Obj(),
		"tainted":      builders.MakeSeed("tainted").Ready().Taint("dedicated", "ops").Obj(),
		"full":         builders.MakeSeed("full").Ready().Allocatable(2).Obj(),
		"aws":          builders.MakeSeed("aws").Provider("aws", "eu-west-1").Ready().Obj(),
		"other-region": builders.MakeSeed("other-region").Provider("gcp", "us-east1").Ready().Obj(),
		"backed":       builders.MakeSeed("backed").Backup("gcp").Ready().Obj(),
		"backed-too":   builders.MakeSeed("backed-too").Backup("gcp").Ready().Obj(),
		"other-dns":    builders.MakeSeed("other-dns").Backup("gcp").InternalDomain("internal.example.org").Ready().Obj(),
	}
	usage := map[string]int{"fits": 1, "full": 2}
	in := &framework.Input{Usage: func(s *framework.SeedInfo) int { return usage[s.Name] }}

	cases := []struct {
		name      string
		seed      string
		from      string // the spec.seedName the request changes: a migration
		counted   bool
		force     *string
		allowed   bool
		reason    framework.Reason
		forced    bool
		inMessage string
	}{
		{name: "fitting seed", seed: "fits", allowed: true},
		{name: "region the strategy would not pick", seed: "other-region", allowed: true},
		{name: "no such seed", seed: "gone", reason: ReasonSeedNotFound, inMessage: `spec.seedName "gone": the seed does not take the shoot: SeedNotFound: no such seed exists`},
		{name: "deleting seed", seed: "deleting", reason: plugins.ReasonNotUsable, inMessage: "SeedNotUsable: being deleted"},
		{name: "not ready seed", seed: "not-ready", reason: plugins.ReasonNotUsable, inMessage: "SeedNotUsable: condition GardenletReady is not True"},
		{name: "tainted seed", seed: "tainted", reason: plugins.ReasonTaintsNotTolerated, inMessage: "TaintsNotTolerated: taint dedicated=ops is not tolerated"},
		{name: "other provider", seed: "aws", reason: plugins.ReasonProviderMismatch, inMessage: `ProviderMismatch: provider "aws" is not the shoot's "gcp"`},
		{name: "full seed", seed: "full", reason: plugins.ReasonCapacityExhausted, inMessage: "CapacityExhausted: no capacity left for shoots (allocatable 2)"},
		{name: "full seed the shoot already counts on", seed: "full", counted: true, allowed: true},
		{name: "full seed forced", seed: "full", force: ptr.To("incident 42: evacuating seed x"), allowed: true, reason: plugins.ReasonCapacityExhausted, forced: true,
			inMessage: `spec.seedName "full" is forced by annotation scheduling.gardener.cloud/force-binding ("incident 42: evacuating seed x") although the seed does not take the shoot: CapacityExhausted`},
		{name: "no such seed forced", seed: "gone", force: ptr.To("seed is being registered"), allowed: true, reason: ReasonSeedNotFound, forced: true},
		{name: "override without a reason", seed: "full", force: ptr.To(""), reason: plugins.ReasonCapacityExhausted, inMessage: "annotation scheduling.gardener.cloud/force-binding is present but empty"},
		{name: "refusal says how to override", seed: "tainted", reason: plugins.ReasonTaintsNotTolerated, inMessage: `adds the annotation scheduling.gardener.cloud/force-binding: "<why>" in the same request`},
		{name: "forcing a fitting seed overrides nothing", seed: "fits", force: ptr.To("habit"), allowed: true},
		{name: "migration between seeds with backup", seed: "backed", from: "backed-too", allowed: true},
		{name: "migration off a seed without backup", seed: "backed", from: "fits", reason: plugins.ReasonMigrationWithoutBackup,
			inMessage: "MigrationWithoutBackup: the shoot's control plane cannot leave seed fits: it has no spec.backup"},
		{name: "migration onto a seed without backup", seed: "fits", from: "backed", reason: plugins.ReasonMigrationWithoutBackup,
			inMessage: "MigrationWithoutBackup: has no spec.backup, which a control plane moving from seed backed needs"},
		{name: "migration to another internal domain", seed: "other-dns", from: "backed", reason: plugins.ReasonInternalDomainMismatch,
			inMessage: "InternalDomainMismatch: its internal domain (spec.dns.internal) is internal.example.org, that of seed backed, which the shoot's control plane leaves, none"},
		{name: "migration off a seed that does not exist", seed: "backed", from: "vanished", reason: ReasonSeedNotFound,
			inMessage: "seed vanished, which the shoot's control plane would leave (the spec.seedName the request changes), does not exist"},
		{name: "migration off a seed without backup, forced", seed: "backed", from: "fits", force: ptr.To("restore by hand"), allowed: true,
			reason: plugins.ReasonMigrationWithoutBackup, forced: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shoot := builders.MakeShoot("p", "a").SeedName(c.seed).Obj()
			if c.force != nil {
				shoot.Annotations = map[string]string{AnnotationForceBinding: *c.force}
			}
			in := *in
			in.Shoot = shoot
			var seed, from *framework.SeedInfo
			if s, ok := seeds[c.seed]; ok {
				seed = plugins.NewSeedInfo(s)
			}
			if s, ok := seeds[c.from]; ok {
				from = plugins.NewSeedInfo(s)
			}
			v := Check(profile, &in, seed, from, Binding{Shoot: shoot, Seed: c.seed, Counted: c.counted, From: c.from})
			assert.Equal(t, c.allowed, v.Allowed, v.Message)
			if c.reason == "" {
				assert.Nil(t, v.Rejection)
				assert.Empty(t, v.Message)
			} else {
				require.NotNil(t, v.Rejection)
				assert.Equal(t, c.reason, v.Rejection.Reason)
			}
			assert.Equal(t, c.forced, v.Forced != "")
			assert.Contains(t, v.Message, c.inMessage)
		})
	}
}

// The message of a refused binding gives the reason and message the scheduler's events give
// for that seed.
func TestCheckGivesTheSchedulersReason(t *testing.T) {
	profile, err := plugins.NewProfile(&config.SchedulerConfiguration{Strategy: config.SameRegion})
	require.NoError(t, err)
	seed := plugins.NewSeedInfo(builders.MakeSeed("tainted").Ready().Taint("dedicated", "").Obj())
	shoot := builders.MakeShoot("p", "a").SeedName("tainted").Obj()
	in := &framework.Input{Shoot: shoot, Usage: func(*framework.SeedInfo) int { return 0 }}
	scheduled := profile.Schedule(in, []*framework.SeedInfo{seed})
	require.Len(t, scheduled.Rejections, 1)

	v := Check(profile, in, seed, nil, Binding{Shoot: shoot, Seed: "tainted"})
	require.NotNil(t, v.Rejection)
	assert.Equal(t, scheduled.Rejections[0].Status, v.Rejection.Status)
	assert.Contains(t, scheduled.Message(), string(v.Rejection.Reason)+": 1 seed(s): "+v.Rejection.Message)
}

func TestUnjudgedRefusesUnlessForced(t *testing.T) {
	shoot := builders.MakeShoot("p", "a").SeedName("s").Obj()
	v := Unjudged(Binding{Shoot: shoot, Seed: "s"}, errors.New("CloudProfile gcp of the shoot does not exist"))
	assert.False(t, v.Allowed)
	assert.Contains(t, v.Message, "InputUnavailable: CloudProfile gcp of the shoot does not exist")

	shoot.Annotations = map[string]string{AnnotationForceBinding: "profile comes next"}
	v = Unjudged(Binding{Shoot: shoot, Seed: "s"}, errors.New("CloudProfile gcp of the shoot does not exist"))
	assert.True(t, v.Allowed)
	assert.Equal(t, "profile comes next", v.Forced)
}
