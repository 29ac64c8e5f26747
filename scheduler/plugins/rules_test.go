package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/region"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// Gardener's filterSeedsMatchingDomain: a shoot under a default domain of the seeds goes only
// to a seed serving it as <shoot>.<project>.<default domain>; any other domain to any seed.
func TestDomain(t *testing.T) {
	serving := builders.MakeSeed("s").DefaultDomains("other.example", "shoots.example.com")
	cases := []struct {
		name       string
		shoot      *gardencorev1beta1.Shoot
		seed       *gardencorev1beta1.Seed
		usesDomain bool // Input.UsesDefaultDomain
		want       framework.Reason
	}{
		{"no domain", builders.MakeShoot("garden-dev", "web").Obj(), builders.MakeSeed("s").Obj(), false, ""},
		{"own domain", builders.MakeShoot("garden-dev", "web").Domain("api.web.example.org").Obj(), builders.MakeSeed("s").Obj(), false, ""},
		{"default domain served", builders.MakeShoot("garden-dev", "web").Domain("web.dev.shoots.example.com").Obj(), serving.Obj(), true, ""},
		{"default domain not served", builders.MakeShoot("garden-dev", "web").Domain("web.dev.shoots.example.com").Obj(), builders.MakeSeed("s").DefaultDomains("other.example").Obj(), true, ReasonDomainNotServed},
		{"default domain, seed without dns", builders.MakeShoot("garden-dev", "web").Domain("web.dev.shoots.example.com").Obj(), builders.MakeSeed("s").Obj(), true, ReasonDomainNotServed},
		{"below the default domain, not as <shoot>.<project>", builders.MakeShoot("garden-dev", "web").Domain("api.web.dev.shoots.example.com").Obj(), serving.Obj(), true, ReasonDomainNotServed},
		{"below the default domain, another shoot's name", builders.MakeShoot("garden-dev", "web").Domain("db.dev.shoots.example.com").Obj(), serving.Obj(), true, ReasonDomainNotServed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &framework.Input{Shoot: c.shoot, UsesDefaultDomain: c.usesDomain}
			st := Domain{}.Filter(in, NewSeedInfo(c.seed))
			if c.want == "" {
				assert.Nil(t, st)
				return
			}
			require.NotNil(t, st)
			assert.Equal(t, c.want, st.Reason)
			assert.Contains(t, st.Message, "spec.dns.defaults")
		})
	}
}

func TestUsesDefaultDomain(t *testing.T) {
	seeds := []*framework.SeedInfo{
		NewSeedInfo(builders.MakeSeed("a").Obj()),
		NewSeedInfo(builders.MakeSeed("b").DefaultDomains("shoots.example.com").Obj()),
	}
	cases := []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		want  bool
	}{
		{"no domain", builders.MakeShoot("p", "web").Obj(), false},
		{"below a seed's default domain", builders.MakeShoot("p", "web").Domain("web.p.shoots.example.com").Obj(), true},
		{"the default domain itself is not below it", builders.MakeShoot("p", "web").Domain("shoots.example.com").Obj(), false},
		{"a domain that only ends alike", builders.MakeShoot("p", "web").Domain("web.myshoots.example.com").Obj(), false},
		{"an own domain", builders.MakeShoot("p", "web").Domain("api.example.org").Obj(), false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, UsesDefaultDomain(c.shoot, seeds), c.name)
	}
}

// gardener-apiserver's checks of a change of spec.seedName (ShootValidator): backup on both
// seeds, the same internal domain, and the default domain of the shoot on the new seed.
func TestMigration(t *testing.T) {
	withBackup := func(name string) *builders.SeedBuilder { return builders.MakeSeed(name).Backup("gcp") }
	shoot := builders.MakeShoot("garden-dev", "web").Obj()
	underDefault := builders.MakeShoot("garden-dev", "web").Domain("web.dev.shoots.example.com").Obj()
	cases := []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		from  *gardencorev1beta1.Seed // nil: a first placement
		seed  *gardencorev1beta1.Seed
		want  framework.Reason
	}{
		{"first placement", shoot, nil, builders.MakeSeed("to").Obj(), ""},
		{"both with backup", shoot, withBackup("from").Obj(), withBackup("to").Obj(), ""},
		{"the seed left has no backup", shoot, builders.MakeSeed("from").Obj(), withBackup("to").Obj(), ReasonMigrationWithoutBackup},
		{"the new seed has no backup", shoot, withBackup("from").Obj(), builders.MakeSeed("to").Obj(), ReasonMigrationWithoutBackup},
		{"the same seed is no move", shoot, builders.MakeSeed("from").Obj(), builders.MakeSeed("from").Obj(), ""},
		{"same internal domain", shoot, withBackup("from").InternalDomain("internal.example.com").Obj(), withBackup("to").InternalDomain("internal.example.com").Obj(), ""},
		{"other internal domain", shoot, withBackup("from").InternalDomain("internal.example.com").Obj(), withBackup("to").InternalDomain("internal.example.org").Obj(), ReasonInternalDomainMismatch},
		{"internal domain only on the new seed", shoot, withBackup("from").Obj(), withBackup("to").InternalDomain("internal.example.com").Obj(), ReasonInternalDomainMismatch},
		{"default domain on both", underDefault, withBackup("from").DefaultDomains("shoots.example.com").Obj(), withBackup("to").DefaultDomains("x.example", "shoots.example.com").Obj(), ""},
		{"default domain not on the new seed", underDefault, withBackup("from").DefaultDomains("shoots.example.com").Obj(), withBackup("to").DefaultDomains("x.example").Obj(), ReasonDefaultDomainMismatch},
		{"a domain not below the old seed's defaults", underDefault, withBackup("from").DefaultDomains("x.example").Obj(), withBackup("to").Obj(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &framework.Input{Shoot: c.shoot, MigratingFrom: c.from}
			st := Migration{}.Filter(in, NewSeedInfo(c.seed))
			if c.want == "" {
				assert.Nil(t, st)
				return
			}
			require.NotNil(t, st)
			assert.Equal(t, c.want, st.Reason)
			assert.Contains(t, st.Message, "from", "the message names the seed the control plane leaves")
		})
	}
}

// A drain moves a control plane no farther than the region config's threshold from the
// region of the seed it leaves, as gardener-apiserver judges a live migration; the AWS
// config Gardener publishes is in milliseconds.
func TestMigrationDistance(t *testing.T) {
	aws := loadRegionConfig(t, "aws")
	seed := func(name, region string) *gardencorev1beta1.Seed {
		return builders.MakeSeed(name).Provider("aws", region).Backup("aws").Obj()
	}
	withThreshold := func(v string) *region.Config {
		return region.Parse(&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "near", Annotations: map[string]string{region.AnnotationDistanceThreshold: v}},
			Data:       map[string]string{"af-south-1": "eu-west-3: 146\neu-north-1: 180\n"},
		})
	}
	shoot := builders.MakeShoot("garden-dev", "web").Provider("aws", "af-south-1").Obj()
	distant := builders.MakeShoot("garden-dev", "web").Provider("aws", "af-south-1").Annotations(gardencorev1beta1.AnnotationAllowDistantRegions, "true").Obj()
	from := seed("cape", "af-south-1")
	cases := []struct {
		name        string
		shoot       *gardencorev1beta1.Shoot
		config      *region.Config
		to          *gardencorev1beta1.Seed
		limit       bool
		wantMessage string // empty: the seed passes
	}{
		{"within the default threshold", shoot, aws, seed("stockholm", "eu-north-1"), true, ""},
		{"beyond it", shoot, aws, seed("singapore", "ap-southeast-1"), true,
			"region ap-southeast-1 is at distance 216 from region af-south-1 of seed cape, which the control plane leaves: farther than the threshold 180 " +
				"of region config garden/aws-region-config (annotate the shoot migration.gardener.cloud/allow-distant-regions=true to allow it)"},
		{"a move the drain did not make", shoot, aws, seed("singapore", "ap-southeast-1"), false, ""},
		{"a shoot allowed distant regions", distant, aws, seed("singapore", "ap-southeast-1"), true, ""},
		{"the same region", shoot, aws, seed("cape-2", "af-south-1"), true, ""},
		{"a region the config does not measure", shoot, aws, seed("mars", "mars-central-1"), true, ""},
		{"no region config", shoot, nil, seed("singapore", "ap-southeast-1"), true, ""},
		{"a lower threshold of the config", shoot, withThreshold("150"), seed("stockholm", "eu-north-1"), true,
			"region eu-north-1 is at distance 180 from region af-south-1 of seed cape, which the control plane leaves: farther than the threshold 150 " +
				"of region config garden/near (annotate the shoot migration.gardener.cloud/allow-distant-regions=true to allow it)"},
		{"a threshold that does not parse", shoot, withThreshold("far"), seed("paris", "eu-west-3"), true,
			`region config garden/near: metadata.annotations[migration.gardener.cloud/inter-region-distance-threshold]: Invalid value: "far": not a whole number of 0 or more, e.g. "180": ` +
				"a control plane leaves seed cape for another region only within the threshold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &framework.Input{Shoot: c.shoot, MigratingFrom: from, RegionConfig: c.config, LimitMigrationDistance: c.limit}
			st := MigrationDistance{}.Filter(in, NewSeedInfo(c.to))
			if c.wantMessage == "" {
				assert.Nil(t, st)
				return
			}
			require.NotNil(t, st)
			assert.Equal(t, ReasonMigrationTooFar, st.Reason)
			assert.Equal(t, c.wantMessage, st.Message)
		})
	}
}

// Gardener's second pass of filterSeedsForZoneSelection: a Prefer seed without a zone of
// the workers loses to every other seed, but is kept when no other seed is left.
func TestZonePreference(t *testing.T) {
	prefer := gardencorev1beta1.ZoneSelectionModePrefer
	workers := builders.MakeShoot("p", "a").Worker("w", "z1").Obj()
	cases := []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		seeds []*builders.SeedBuilder
		want  []bool // per seed: rejected
	}{
		{"a Prefer seed with a worker zone beats one without", workers,
			[]*builders.SeedBuilder{builders.MakeSeed("away").Zones("z2").ZoneSelection(prefer), builders.MakeSeed("near").Zones("z1").ZoneSelection(prefer)},
			[]bool{true, false}},
		{"a seed without zoneSelection beats a Prefer seed without a worker zone", workers,
			[]*builders.SeedBuilder{builders.MakeSeed("away").Zones("z2").ZoneSelection(prefer), builders.MakeSeed("plain").Zones("z9")},
			[]bool{true, false}},
		{"Prefer seeds all without a worker zone stay", workers,
			[]*builders.SeedBuilder{builders.MakeSeed("a").Zones("z2").ZoneSelection(prefer), builders.MakeSeed("b").Zones("z3").ZoneSelection(prefer)},
			[]bool{false, false}},
		{"workers without zones", builders.MakeShoot("p", "a").Worker("w").Obj(),
			[]*builders.SeedBuilder{builders.MakeSeed("away").Zones("z2").ZoneSelection(prefer), builders.MakeSeed("plain")},
			[]bool{false, false}},
		{"pinned control plane zones", builders.MakeShoot("p", "a").Worker("w", "z1").ControlPlaneZones("z2").Obj(),
			[]*builders.SeedBuilder{builders.MakeSeed("away").Zones("z2").ZoneSelection(prefer), builders.MakeSeed("near").Zones("z1", "z2").ZoneSelection(prefer)},
			[]bool{false, false}},
		{"a control plane tolerating a zone failure", builders.MakeShoot("p", "a").Worker("w", "z1").ZoneFailureTolerance().Obj(),
			[]*builders.SeedBuilder{builders.MakeSeed("away").Zones("z2", "z3", "z4").ZoneSelection(prefer), builders.MakeSeed("near").Zones("z1", "z2", "z3")},
			[]bool{false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			statuses := ZonePreference{}.Prefer(&framework.Input{Shoot: c.shoot}, seeds(c.seeds...))
			if statuses == nil {
				assert.NotContains(t, c.want, true, "nil: every seed stays")
				return
			}
			require.Len(t, statuses, len(c.want))
			for i, rejected := range c.want {
				if !rejected {
					assert.Nil(t, statuses[i], "seed %d", i)
					continue
				}
				require.NotNil(t, statuses[i], "seed %d", i)
				assert.Equal(t, ReasonZoneNotPreferred, statuses[i].Reason)
			}
		})
	}
}

// The preference applies to the seeds left by the filters, before the strategy: a Prefer
// seed far from the workers loses while a nearer seed has room, and takes the shoot once it
// is the only one left.
func TestZonePreferenceNarrowsAfterTheFilters(t *testing.T) {
	prefer := gardencorev1beta1.ZoneSelectionModePrefer
	shoot := builders.MakeShoot("p", "a").Worker("w", "z1").Obj()
	landscape := seeds(
		builders.MakeSeed("away").Zones("z2").ZoneSelection(prefer),
		builders.MakeSeed("near").Zones("z1").ZoneSelection(prefer).Allocatable(1),
	)
	p := gardener(t, config.SameRegion)
	res := p.Schedule(&framework.Input{Shoot: shoot, Usage: usageOf(map[string]int{"near": 0, "away": 0})}, landscape)
	assert.Equal(t, "near", winner(res))
	require.Len(t, res.Rejections, 1)
	assert.Equal(t, ReasonZoneNotPreferred, res.Rejections[0].Reason)
	assert.Equal(t, "ZonePreference", res.Rejections[0].Plugin)

	res = p.Schedule(&framework.Input{Shoot: shoot, Usage: usageOf(map[string]int{"near": 1})}, landscape)
	assert.Equal(t, "away", winner(res), "the nearer seed is full: the preference does not leave the shoot without a seed")
}

// A seed stopped in an emergency says which annotation stops it, so that an operator finds
// what to remove.
func TestEmergencyStopNamesTheAnnotation(t *testing.T) {
	seed := NewSeedInfo(builders.MakeSeed("s").Annotations(gardencorev1beta1.AnnotationEmergencyStopShootReconciliations, "true").Ready().Obj())
	res := gardener(t, config.SameRegion).Schedule(&framework.Input{Shoot: builders.MakeShoot("p", "a").Obj(), Usage: usageOf(nil)}, []*framework.SeedInfo{seed})
	assert.Nil(t, res.Seed)
	assert.Contains(t, res.Message(), "ShootReconciliationsStopped: 1 seed(s): shoot reconciliations are stopped: the seed is annotated shoot.gardener.cloud/emergency-stop-reconciliations=true (s)")
}
