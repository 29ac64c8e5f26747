package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/region"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func usageOf(counts map[string]int) func(*framework.SeedInfo) int {
	return func(seed *framework.SeedInfo) int { return counts[seed.Name] }
}

func cloudProfile(name string, selector *gardencorev1beta1.SeedSelector) *gardencorev1beta1.CloudProfile {
	return &gardencorev1beta1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       gardencorev1beta1.CloudProfileSpec{Type: "gcp", SeedSelector: selector},
	}
}

func TestFilters(t *testing.T) {
	deleting := builders.MakeSeed("s").Ready().Obj()
	deleting.DeletionTimestamp = &metav1.Time{}
	failedBackup := builders.MakeSeed("s").Backup("gcp").Ready().Condition(gardencorev1beta1.SeedBackupBucketsReady, metav1.ConditionFalse).Obj()
	noLastOp := builders.MakeSeed("s").Ready().Obj()
	noLastOp.Status.LastOperation = nil
	noSettings := builders.MakeSeed("s").Ready().Obj()
	noSettings.Spec.Settings = nil

	cases := []struct {
		name   string
		filter framework.FilterPlugin
		shoot  *gardencorev1beta1.Shoot
		cp     *gardencorev1beta1.CloudProfile
		seed   *gardencorev1beta1.Seed
		usage  int
		want   framework.Reason // empty: passes
	}{
		{"usable: ready seed", Usable{}, nil, nil, builders.MakeSeed("s").Ready().Obj(), 0, ""},
		{"usable: settings never defaulted count as visible", Usable{}, nil, nil, noSettings, 0, ""},
		{"usable: deleting", Usable{}, nil, nil, deleting, 0, ReasonNotUsable},
		{"usable: invisible", Usable{}, nil, nil, builders.MakeSeed("s").Invisible().Ready().Obj(), 0, ReasonNotUsable},
		{"usable: no lastOperation", Usable{}, nil, nil, noLastOp, 0, ReasonNotUsable},
		{"usable: gardenlet not ready", Usable{}, nil, nil, builders.MakeSeed("s").Ready().Condition(gardencorev1beta1.SeedGardenletReady, metav1.ConditionUnknown).Obj(), 0, ReasonNotUsable},
		{"usable: no GardenletReady at all", Usable{}, nil, nil, func() *gardencorev1beta1.Seed {
			s := builders.MakeSeed("s").Ready().Obj()
			s.Status.Conditions = nil
			return s
		}(), 0, ReasonNotUsable},
		{"usable: backup buckets not ready with backup", Usable{}, nil, nil, failedBackup, 0, ReasonNotUsable},
		{"usable: backup buckets not needed without backup", Usable{}, nil, nil, builders.MakeSeed("s").Ready().Condition(gardencorev1beta1.SeedBackupBucketsReady, metav1.ConditionFalse).Obj(), 0, ""},

		{"cloud profile selector: matches", CloudProfileSeedSelector{}, nil, cloudProfile("gcp", &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}), builders.MakeSeed("s").Labels("a", "b").Obj(), 0, ""},
		{"cloud profile selector: mismatch", CloudProfileSeedSelector{}, nil, cloudProfile("gcp", &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}), builders.MakeSeed("s").Labels("a", "c").Obj(), 0, ReasonCloudProfileSelector},
		{"cloud profile selector: none", CloudProfileSeedSelector{}, nil, cloudProfile("gcp", nil), builders.MakeSeed("s").Obj(), 0, ""},
		{"cloud profile selector: no cloud profile", CloudProfileSeedSelector{}, nil, nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"cloud profile selector: invalid", CloudProfileSeedSelector{}, nil, cloudProfile("gcp", &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}), builders.MakeSeed("s").Obj(), 0, ReasonInvalidSeedSelector},

		{"shoot selector: matches", ShootSeedSelector{}, builders.MakeShoot("p", "a").SeedSelector(map[string]string{"tier": "gold"}).Obj(), nil, builders.MakeSeed("s").Labels("tier", "gold").Obj(), 0, ""},
		{"shoot selector: mismatch", ShootSeedSelector{}, builders.MakeShoot("p", "a").SeedSelector(map[string]string{"tier": "gold"}).Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonShootSelector},

		{"provider: same by default", Provider{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"provider: other by default", Provider{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Provider("aws", "eu-west-1").Obj(), 0, ReasonProviderMismatch},
		{"provider: shoot allows aws", Provider{}, builders.MakeShoot("p", "a").SeedSelector(nil, "aws").Obj(), nil, builders.MakeSeed("s").Provider("aws", "eu-west-1").Obj(), 0, ""},
		{"provider: shoot allows only aws, not its own", Provider{}, builders.MakeShoot("p", "a").SeedSelector(nil, "aws").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonProviderMismatch},
		{"provider: shoot allows any", Provider{}, builders.MakeShoot("p", "a").SeedSelector(nil, "*").Obj(), nil, builders.MakeSeed("s").Provider("azure", "westeurope").Obj(), 0, ""},
		{"provider: cloud profile allows any", Provider{}, builders.MakeShoot("p", "a").Obj(), cloudProfile("gcp", &gardencorev1beta1.SeedSelector{ProviderTypes: []string{"*"}}), builders.MakeSeed("s").Provider("aws", "x").Obj(), 0, ""},
		{"provider: cloud profile allows any, shoot only gcp", Provider{}, builders.MakeShoot("p", "a").SeedSelector(nil, "gcp").Obj(), cloudProfile("gcp", &gardencorev1beta1.SeedSelector{ProviderTypes: []string{"*"}}), builders.MakeSeed("s").Provider("aws", "x").Obj(), 0, ReasonProviderMismatch},

		{"networks: disjoint", Networks{}, builders.MakeShoot("p", "a").Networks("10.180.0.0/16", "100.128.0.0/11", "100.72.0.0/13").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		// Since Gardener v1.125 the VPN maps IPv4 networks: shoot and seed may share them.
		{"networks: IPv4 shoot nodes in seed nodes", Networks{}, builders.MakeShoot("p", "a").Networks("10.250.1.0/24", "", "").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"networks: IPv4 shoot pods and services equal the seed's", Networks{}, builders.MakeShoot("p", "a").Networks("10.180.0.0/16", "100.96.0.0/11", "100.64.0.0/13").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"networks: IPv6 shoot nodes overlap IPv6 seed pods", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("2001:db8:1::/48", "", "").Obj(), nil,
			builders.MakeSeed("s").Networks("2001:db8:2::/48", "2001:db8::/32", "fd00:10::/112").Obj(), 0, ReasonNetworksOverlap},
		{"networks: IPv6 shoot services overlap IPv6 seed services", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("", "", "fd00:10::/108").Obj(), nil,
			builders.MakeSeed("s").Networks("2001:db8:2::/48", "2001:db8:3::/48", "fd00:10::/112").Obj(), 0, ReasonNetworksOverlap},
		{"networks: IPv6 shoot networks disjoint from the seed's", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("2001:db8:1::/48", "2001:db8:4::/48", "fd00:20::/112").Obj(), nil,
			builders.MakeSeed("s").Networks("2001:db8:2::/48", "2001:db8:3::/48", "fd00:10::/112").Obj(), 0, ""},
		{"networks: IPv6 shoot network beside IPv4 seed networks", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("2001:db8:1::/48", "", "").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"networks: shoot services in the reserved kube-apiserver mapping range", Networks{}, builders.MakeShoot("p", "a").Networks("", "", "240.0.0.0/16").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonNetworksOverlap},
		{"networks: shoot pods over the reserved mapping ranges", Networks{}, builders.MakeShoot("p", "a").Worker("w", "a").Networks("", "240.0.0.0/4", "").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonNetworksOverlap},
		{"networks: shoot nodes in the default VPN network", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("fd8f:6d53:b97a:1::/112", "", "").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonNetworksOverlap},
		{"networks: seed's default services in a reserved range", Networks{}, builders.MakeShoot("p", "a").Networks("10.180.0.0/16", "", "").Obj(), nil, builders.MakeSeed("s").ShootDefaults("100.128.0.0/11", "243.0.0.0/16").Obj(), 0, ReasonNetworksOverlap},
		{"networks: own services win over the seed's default", Networks{}, builders.MakeShoot("p", "a").Networks("10.180.0.0/16", "", "100.72.0.0/13").Obj(), nil, builders.MakeSeed("s").ShootDefaults("100.128.0.0/11", "243.0.0.0/16").Obj(), 0, ""},
		{"networks: seed's default pods count for a shoot with workers", Networks{}, builders.MakeShoot("p", "a").Worker("w").Networks("10.180.0.0/16", "", "").Obj(), nil, builders.MakeSeed("s").ShootDefaults("244.0.0.0/16", "100.72.0.0/13").Obj(), 0, ReasonNetworksOverlap},
		{"networks: seed's default pods do not count for a workerless shoot", Networks{}, builders.MakeShoot("p", "a").Networks("10.180.0.0/16", "", "").Obj(), nil, builders.MakeSeed("s").ShootDefaults("244.0.0.0/16", "100.72.0.0/13").Obj(), 0, ""},
		{"networks: a default of a family the shoot does not use is not taken", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("2001:db8:1::/48", "", "").Obj(), nil, builders.MakeSeed("s").ShootDefaults("100.128.0.0/11", "243.0.0.0/16").Obj(), 0, ""},
		{"networks: an IPv6 default of an IPv6 shoot is taken", Networks{}, builders.MakeShoot("p", "a").IPFamilies(gardencorev1beta1.IPFamilyIPv6).Networks("2001:db8:1::/48", "", "").Obj(), nil,
			builders.MakeSeed("s").Networks("2001:db8:2::/48", "2001:db8:3::/48", "fd00:10::/112").ShootDefaults("2001:db8:5::/48", "fd00:10::/120").Obj(), 0, ReasonNetworksOverlap},
		{"networks: no networking, the seed's defaults apply", Networks{}, func() *gardencorev1beta1.Shoot {
			s := builders.MakeShoot("p", "a").Obj()
			s.Spec.Networking = nil
			return s
		}(), nil, builders.MakeSeed("s").ShootDefaults("100.128.0.0/11", "242.1.0.0/16").Obj(), 0, ReasonNetworksOverlap},
		{"networks: status networks of a running shoot are checked", Networks{}, builders.MakeShoot("p", "a").StatusNetworks("10.180.0.0/16", "", "243.1.0.0/16").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonNetworksOverlap},
		{"networks: status networks of a running shoot that fit", Networks{}, builders.MakeShoot("p", "a").StatusNetworks("10.180.0.0/16", "", "100.72.0.0/13").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"networks: status networks without services", Networks{}, builders.MakeShoot("p", "a").StatusNetworks("10.180.0.0/16", "", "").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonShootNetworksMissing},
		{"networks: status networks of a shoot with workers without pods", Networks{}, builders.MakeShoot("p", "a").Worker("w").StatusNetworks("10.180.0.0/16", "", "100.72.0.0/13").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonShootNetworksMissing},

		{"taints: none", Taints{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"taints: not tolerated", Taints{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Taint("seed.gardener.cloud/protected", "").Obj(), 0, ReasonTaintsNotTolerated},
		{"taints: tolerated by key", Taints{}, builders.MakeShoot("p", "a").Toleration("seed.gardener.cloud/protected", "").Obj(), nil, builders.MakeSeed("s").Taint("seed.gardener.cloud/protected", "").Obj(), 0, ""},
		// As Gardener's TaintsAreTolerated: a taint with a value needs that value.
		{"taints: key toleration does not tolerate a value", Taints{}, builders.MakeShoot("p", "a").Toleration("dedicated", "").Obj(), nil, builders.MakeSeed("s").Taint("dedicated", "team-a").Obj(), 0, ReasonTaintsNotTolerated},
		{"taints: value toleration matches", Taints{}, builders.MakeShoot("p", "a").Toleration("dedicated", "team-a").Obj(), nil, builders.MakeSeed("s").Taint("dedicated", "team-a").Obj(), 0, ""},
		{"taints: value toleration other value", Taints{}, builders.MakeShoot("p", "a").Toleration("dedicated", "team-b").Obj(), nil, builders.MakeSeed("s").Taint("dedicated", "team-a").Obj(), 0, ReasonTaintsNotTolerated},
		{"taints: value toleration, taint without value", Taints{}, builders.MakeShoot("p", "a").Toleration("dedicated", "team-b").Obj(), nil, builders.MakeSeed("s").Taint("dedicated", "").Obj(), 0, ""},
		{"taints: one of two tolerated", Taints{}, builders.MakeShoot("p", "a").Toleration("a", "").Obj(), nil, builders.MakeSeed("s").Taint("a", "").Taint("b", "").Obj(), 0, ReasonTaintsNotTolerated},
		{"taints: both tolerated", Taints{}, builders.MakeShoot("p", "a").Toleration("a", "").Toleration("b", "x").Obj(), nil, builders.MakeSeed("s").Taint("a", "").Taint("b", "x").Obj(), 0, ""},

		{"access restrictions: none asked", AccessRestrictions{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").AccessRestrictions("eu-access-only").Obj(), 0, ""},
		{"access restrictions: supported", AccessRestrictions{}, builders.MakeShoot("p", "a").AccessRestrictions("eu-access-only").Obj(), nil, builders.MakeSeed("s").AccessRestrictions("eu-access-only", "other").Obj(), 0, ""},
		{"access restrictions: seed supports none", AccessRestrictions{}, builders.MakeShoot("p", "a").AccessRestrictions("eu-access-only").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ReasonAccessRestrictions},
		{"access restrictions: one of two supported", AccessRestrictions{}, builders.MakeShoot("p", "a").AccessRestrictions("eu-access-only", "other").Obj(), nil, builders.MakeSeed("s").AccessRestrictions("eu-access-only").Obj(), 0, ReasonAccessRestrictions},

		{"reconciliations: running", ReconciliationsEnabled{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Annotations(gardencorev1beta1.AnnotationEmergencyStopShootReconciliations, "false").Obj(), 0, ""},
		{"reconciliations: stopped in an emergency", ReconciliationsEnabled{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Annotations(gardencorev1beta1.AnnotationEmergencyStopShootReconciliations, "true").Obj(), 0, ReasonReconciliationsStopped},

		{"zone selection: nothing asked", ZoneSelection{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Zones("a").ZoneSelection(gardencorev1beta1.ZoneSelectionModeEnforce).Obj(), 0, ""},
		{"zone selection: pinned zones the seed has", ZoneSelection{}, builders.MakeShoot("p", "a").ControlPlaneZones("b").Obj(), nil, builders.MakeSeed("s").Zones("a", "b").Obj(), 0, ""},
		{"zone selection: a pinned zone the seed lacks", ZoneSelection{}, builders.MakeShoot("p", "a").ControlPlaneZones("c").Obj(), nil, builders.MakeSeed("s").Zones("a", "b").Obj(), 0, ReasonControlPlaneZonesUnavailable},
		{"zone selection: pinned zones win over Enforce", ZoneSelection{}, builders.MakeShoot("p", "a").ControlPlaneZones("b").Worker("w", "a").Obj(), nil, builders.MakeSeed("s").Zones("b").ZoneSelection(gardencorev1beta1.ZoneSelectionModeEnforce).Obj(), 0, ""},
		{"zone selection: Enforce with a worker zone", ZoneSelection{}, builders.MakeShoot("p", "a").Worker("w", "a", "x").Obj(), nil, builders.MakeSeed("s").Zones("a", "b").ZoneSelection(gardencorev1beta1.ZoneSelectionModeEnforce).Obj(), 0, ""},
		{"zone selection: Enforce without a worker zone", ZoneSelection{}, builders.MakeShoot("p", "a").Worker("w", "x").Worker("v", "y").Obj(), nil, builders.MakeSeed("s").Zones("a", "b").ZoneSelection(gardencorev1beta1.ZoneSelectionModeEnforce).Obj(), 0, ReasonWorkerZonesUnavailable},
		{"zone selection: Enforce, workers without zones", ZoneSelection{}, builders.MakeShoot("p", "a").Worker("w").Obj(), nil, builders.MakeSeed("s").Zones("a").ZoneSelection(gardencorev1beta1.ZoneSelectionModeEnforce).Obj(), 0, ""},
		{"zone selection: Prefer is no filter", ZoneSelection{}, builders.MakeShoot("p", "a").Worker("w", "x").Obj(), nil, builders.MakeSeed("s").Zones("a").ZoneSelection(gardencorev1beta1.ZoneSelectionModePrefer).Obj(), 0, ""},
		{"zone selection: not for a control plane tolerating a zone failure", ZoneSelection{}, builders.MakeShoot("p", "a").ZoneFailureTolerance().ControlPlaneZones("x", "y", "z").Obj(), nil, builders.MakeSeed("s").Zones("a", "b", "c").Obj(), 0, ""},

		{"capacity: below allocatable", Capacity{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Allocatable(3).Obj(), 2, ""},
		{"capacity: at allocatable", Capacity{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Allocatable(3).Obj(), 3, ReasonCapacityExhausted},
		{"capacity: above allocatable", Capacity{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Allocatable(3).Obj(), 5, ReasonCapacityExhausted},
		{"capacity: zero allocatable", Capacity{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Allocatable(0).Obj(), 0, ReasonCapacityExhausted},
		{"capacity: no allocatable is no limit", Capacity{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Obj(), 100000, ""},

		{"zones: not asked", Zones{}, builders.MakeShoot("p", "a").Obj(), nil, builders.MakeSeed("s").Obj(), 0, ""},
		{"zones: zone tolerance, three zones", Zones{}, builders.MakeShoot("p", "a").ZoneFailureTolerance().Obj(), nil, builders.MakeSeed("s").Zones("a", "b", "c").Obj(), 0, ""},
		{"zones: zone tolerance, two zones", Zones{}, builders.MakeShoot("p", "a").ZoneFailureTolerance().Obj(), nil, builders.MakeSeed("s").Zones("a", "b").Obj(), 0, ReasonTooFewZones},
		{"zones: node tolerance, one zone", Zones{}, func() *gardencorev1beta1.Shoot {
			s := builders.MakeShoot("p", "a").ZoneFailureTolerance().Obj()
			s.Spec.ControlPlane.HighAvailability.FailureTolerance.Type = gardencorev1beta1.FailureToleranceTypeNode
			return s
		}(), nil, builders.MakeSeed("s").Zones("a").Obj(), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shoot := c.shoot
			if shoot == nil {
				shoot = builders.MakeShoot("p", "a").Obj()
			}
			in := &framework.Input{Shoot: shoot, CloudProfile: c.cp, Usage: usageOf(map[string]int{"s": c.usage})}
			st := c.filter.Filter(in, NewSeedInfo(c.seed))
			if c.want == "" {
				assert.Nil(t, st)
				return
			}
			require.NotNil(t, st)
			assert.Equal(t, c.want, st.Reason)
			assert.NotEmpty(t, st.Message)
		})
	}
}

func TestFilterOrderIsGardeners(t *testing.T) {
	var names []string
	for _, f := range Filters() {
		names = append(names, f.Name())
	}
	assert.Equal(t, []string{"Usable", "CloudProfileSeedSelector", "ShootSeedSelector", "Provider", "Zones", "ZoneSelection",
		"AccessRestrictions", "Domain", "ReconciliationsEnabled", "Networks", "Taints", "Capacity", "Migration", "MigrationDistance"}, names)
}

func loadRegionConfig(t testing.TB, provider string) *region.Config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "region-config", provider+"-region-config.yaml"))
	require.NoError(t, err)
	_, doc, _ := strings.Cut(string(data), "---\n")
	cm := &corev1.ConfigMap{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), cm))
	return region.Parse(cm)
}

func gardener(t *testing.T, strategy config.Strategy) *framework.Profile {
	t.Helper()
	cfg := &config.SchedulerConfiguration{Strategy: strategy}
	config.Default(cfg)
	p, err := NewProfile(cfg)
	require.NoError(t, err)
	return p
}

func seeds(ss ...*builders.SeedBuilder) []*framework.SeedInfo {
	out := make([]*framework.SeedInfo, len(ss))
	for i, s := range ss {
		out[i] = NewSeedInfo(s.Ready().Obj())
	}
	return out
}

func winner(res framework.Result) string {
	if res.Seed == nil {
		return ""
	}
	return res.Seed.Name
}

func TestStrategies(t *testing.T) {
	azure := loadRegionConfig(t, "azure")
	aws := loadRegionConfig(t, "aws")
	cases := []struct {
		name     string
		strategy config.Strategy
		shoot    *gardencorev1beta1.Shoot
		regions  *region.Config
		seeds    []*framework.SeedInfo
		usage    map[string]int
		want     string
		reasons  []framework.Reason
	}{
		{
			name: "SameRegion: the seed in the shoot's region", strategy: config.SameRegion,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Obj(),
			seeds: seeds(builders.MakeSeed("ew1").Provider("gcp", "europe-west1"), builders.MakeSeed("ew3").Provider("gcp", "europe-west3")),
			want:  "ew1", reasons: []framework.Reason{ReasonRegionMismatch},
		},
		{
			name: "SameRegion: no seed in the region fails", strategy: config.SameRegion,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "us-central1").Obj(),
			seeds: seeds(builders.MakeSeed("ew1").Provider("gcp", "europe-west1"), builders.MakeSeed("ew3").Provider("gcp", "europe-west3")),
			want:  "", reasons: []framework.Reason{ReasonRegionMismatch, ReasonRegionMismatch},
		},
		{
			name: "SameRegion: same region of another allowed provider is no match", strategy: config.SameRegion,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").SeedSelector(nil, "*").Obj(),
			seeds: seeds(builders.MakeSeed("aws").Provider("aws", "europe-west1")),
			want:  "", reasons: []framework.Reason{ReasonRegionMismatch},
		},
		{
			name: "testing purpose: provider only, any region", strategy: config.SameRegion,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "us-central1").Purpose(gardencorev1beta1.ShootPurposeTesting).Obj(),
			seeds: seeds(builders.MakeSeed("ew1").Provider("gcp", "europe-west1"), builders.MakeSeed("ew3").Provider("gcp", "europe-west3")),
			usage: map[string]int{"ew1": 5, "ew3": 1},
			want:  "ew3",
		},
		{
			name: "testing purpose: other allowed providers are dropped", strategy: config.MinimalDistance,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Purpose(gardencorev1beta1.ShootPurposeTesting).SeedSelector(nil, "*").Obj(),
			seeds: seeds(builders.MakeSeed("aws").Provider("aws", "europe-west1"), builders.MakeSeed("gcp").Provider("gcp", "asia-east1")),
			usage: map[string]int{"gcp": 9},
			want:  "gcp", reasons: []framework.Reason{ReasonTestingProviderMismatch},
		},
		{
			// Azure names are not hierarchical: Levenshtein puts francecentral nearest to
			// brazilsouth; the published distances put it nearest to uksouth.
			name: "MinimalDistance: the region config beats Levenshtein on Azure", strategy: config.MinimalDistance,
			shoot:   builders.MakeShoot("p", "a").Provider("azure", "francecentral").Obj(),
			regions: azure,
			seeds:   seeds(builders.MakeSeed("brazil").Provider("azure", "brazilsouth"), builders.MakeSeed("uk").Provider("azure", "uksouth")),
			want:    "uk", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: without a region config, Levenshtein picks brazilsouth for francecentral", strategy: config.MinimalDistance,
			shoot: builders.MakeShoot("p", "a").Provider("azure", "francecentral").Obj(),
			seeds: seeds(builders.MakeSeed("brazil").Provider("azure", "brazilsouth"), builders.MakeSeed("uk").Provider("azure", "uksouth")),
			want:  "brazil", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: canadaeast goes to eastus by the config, not japaneast", strategy: config.MinimalDistance,
			shoot:   builders.MakeShoot("p", "a").Provider("azure", "canadaeast").Obj(),
			regions: azure,
			seeds:   seeds(builders.MakeSeed("japan").Provider("azure", "japaneast"), builders.MakeSeed("us").Provider("azure", "eastus")),
			want:    "us", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: seeds of regions the config omits are not candidates while one is named", strategy: config.MinimalDistance,
			shoot:   builders.MakeShoot("p", "a").Provider("aws", "eu-central-1").Obj(),
			regions: aws,
			seeds:   seeds(builders.MakeSeed("far").Provider("aws", "us-east-1"), builders.MakeSeed("mars").Provider("aws", "eu-central-9")),
			want:    "far", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: the shoot's own region is at distance 0 even if the config omits it", strategy: config.MinimalDistance,
			shoot:   builders.MakeShoot("p", "a").Provider("aws", "eu-central-1").Obj(),
			regions: aws,
			seeds:   seeds(builders.MakeSeed("near").Provider("aws", "eu-central-2"), builders.MakeSeed("home").Provider("aws", "eu-central-1")),
			usage:   map[string]int{"home": 50},
			want:    "home", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: region without config entry falls back to Levenshtein", strategy: config.MinimalDistance,
			shoot:   builders.MakeShoot("p", "a").Provider("aws", "eu-central-9").Obj(),
			regions: aws,
			seeds:   seeds(builders.MakeSeed("frankfurt").Provider("aws", "eu-central-1"), builders.MakeSeed("ireland").Provider("aws", "eu-west-1")),
			want:    "frankfurt", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: Levenshtein orientation: same base, other orientation is nearer than another base", strategy: config.MinimalDistance,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Obj(),
			seeds: seeds(builders.MakeSeed("asia").Provider("gcp", "asia-west1"), builders.MakeSeed("east").Provider("gcp", "europe-east1")),
			want:  "east", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: Levenshtein provider correction prefers the shoot's provider", strategy: config.MinimalDistance,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").SeedSelector(nil, "*").Obj(),
			seeds: seeds(builders.MakeSeed("a-aws").Provider("aws", "europe-west1"), builders.MakeSeed("b-gcp").Provider("gcp", "europe-west1")),
			usage: map[string]int{"b-gcp": 10},
			want:  "b-gcp", reasons: []framework.Reason{ReasonNotMinimalDistance},
		},
		{
			name: "MinimalDistance: equal distance, least utilized wins", strategy: config.MinimalDistance,
			shoot: builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Obj(),
			seeds: seeds(builders.MakeSeed("a").Provider("gcp", "europe-west2"), builders.MakeSeed("b").Provider("gcp", "europe-west3")),
			usage: map[string]int{"a": 2, "b": 1},
			want:  "b",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &framework.Input{Shoot: c.shoot, RegionConfig: c.regions, Usage: usageOf(c.usage)}
			res := gardener(t, c.strategy).Schedule(in, c.seeds)
			require.NoError(t, res.Err)
			assert.Equal(t, c.want, winner(res))
			var reasons []framework.Reason
			for _, r := range res.Rejections {
				reasons = append(reasons, r.Reason)
			}
			assert.Equal(t, c.reasons, reasons)
		})
	}
}

func TestBrokenRegionConfigEntryFailsTheDecision(t *testing.T) {
	rc := region.Parse(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "rc"}, Data: map[string]string{"europe-west1": "nope"}})
	in := &framework.Input{Shoot: builders.MakeShoot("p", "a").Obj(), RegionConfig: rc, Usage: usageOf(nil)}
	res := gardener(t, config.MinimalDistance).Schedule(in, seeds(builders.MakeSeed("s")))
	assert.Nil(t, res.Seed)
	assert.ErrorContains(t, res.Err, `region config garden/rc: data[europe-west1]: Invalid value: not a map of seed region to distance`)
	assert.Contains(t, res.Message(), "garden/rc")
}

func TestLeastUtilizedWinnerAndTies(t *testing.T) {
	shoot := builders.MakeShoot("p", "a").Obj()
	cases := []struct {
		name  string
		seeds []string
		usage map[string]int
		want  string
	}{
		{"fewest shoots", []string{"a", "b", "c"}, map[string]int{"a": 3, "b": 1, "c": 2}, "b"},
		{"count, not share of allocatable", []string{"big", "small"}, map[string]int{"big": 5, "small": 4}, "small"},
		{"tie goes to the first name", []string{"c", "b", "a"}, map[string]int{"a": 1, "b": 1, "c": 1}, "a"},
		{"tie goes to the first name regardless of order", []string{"seed-2", "seed-10", "seed-1"}, nil, "seed-1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ss []*framework.SeedInfo
			for _, n := range c.seeds {
				b := builders.MakeSeed(n)
				switch n {
				case "big":
					b.Allocatable(100)
				case "small":
					b.Allocatable(5)
				}
				ss = append(ss, NewSeedInfo(b.Ready().Obj()))
			}
			res := gardener(t, config.SameRegion).Schedule(&framework.Input{Shoot: shoot, Usage: usageOf(c.usage)}, ss)
			assert.Equal(t, c.want, winner(res))
		})
	}
}

func TestFailureMessageGroupsReasons(t *testing.T) {
	shoot := builders.MakeShoot("garden-dev", "a").Provider("gcp", "europe-west1").Obj()
	ss := seeds(
		builders.MakeSeed("full-b").Allocatable(1),
		builders.MakeSeed("full-a").Allocatable(1),
		builders.MakeSeed("hidden").Invisible(),
		builders.MakeSeed("tainted").Taint("seed.gardener.cloud/protected", ""),
		builders.MakeSeed("us").Provider("gcp", "us-central1"),
	)
	ss = append(ss, NewSeedInfo(builders.MakeSeed("notready").Obj()))
	res := gardener(t, config.SameRegion).Schedule(&framework.Input{Shoot: shoot, Usage: usageOf(map[string]int{"full-a": 1, "full-b": 3})}, ss)
	require.Nil(t, res.Seed)
	assert.Equal(t, strings.Join([]string{
		"0/6 seeds are available:",
		"SeedNotUsable: 2 seed(s): no status.lastOperation yet (notready); not visible (spec.settings.scheduling.visible is false) (hidden)",
		"TaintsNotTolerated: 1 seed(s): taint seed.gardener.cloud/protected is not tolerated (tainted)",
		"CapacityExhausted: 2 seed(s): no capacity left for shoots (allocatable 1) (full-a, full-b)",
		"RegionMismatch: 1 seed(s): gcp/us-central1 is not the shoot's gcp/europe-west1 (us)",
	}, "\n"), res.Message())
}

func TestFailureMessageBoundsSeedLists(t *testing.T) {
	var ss []*framework.SeedInfo
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		ss = append(ss, NewSeedInfo(builders.MakeSeed(n).Invisible().Ready().Obj()))
	}
	res := gardener(t, config.SameRegion).Schedule(&framework.Input{Shoot: builders.MakeShoot("p", "a").Obj(), Usage: usageOf(nil)}, ss)
	assert.Contains(t, res.Message(), "(a, b, c, d, e, f, g, h, i, j and 2 more)")
	assert.Equal(t, "0 seeds exist", gardener(t, config.SameRegion).Schedule(&framework.Input{Shoot: builders.MakeShoot("p", "a").Obj()}, nil).Message())
}

func weighted(t *testing.T, strategy config.Strategy, ps ...config.ScorePlugin) *framework.Profile {
	t.Helper()
	cfg := &config.SchedulerConfiguration{Strategy: strategy, Scoring: &config.Scoring{Plugins: ps}}
	config.Default(cfg)
	require.NoError(t, config.Validate(cfg))
	p, err := NewProfile(cfg)
	require.NoError(t, err)
	return p
}

func TestWeightedProfiles(t *testing.T) {
	shoot := builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Obj()
	landscape := func() []*framework.SeedInfo {
		return seeds(
			builders.MakeSeed("empty").Allocatable(100),
			builders.MakeSeed("half").Allocatable(10),
			builders.MakeSeed("nearly-full").Allocatable(10),
			builders.MakeSeed("far").Provider("gcp", "us-central1").Allocatable(10),
		)
	}
	usage := map[string]int{"empty": 1, "half": 5, "nearly-full": 9, "far": 9}
	in := &framework.Input{Shoot: shoot, Usage: usageOf(usage)}

	cases := []struct {
		name    string
		profile *framework.Profile
		want    string
	}{
		{"Gardener: fewest shoots in the region", gardener(t, config.SameRegion), "empty"},
		{"spread: least allocated share", weighted(t, config.SameRegion, config.ScorePlugin{Name: config.SeedResourcesLeastAllocatedPlugin, Weight: 1}), "empty"},
		{"pack: most allocated share, any region", weighted(t, config.SameRegion, config.ScorePlugin{Name: config.SeedResourcesMostAllocatedPlugin, Weight: 1}), "far"},
		{"pack, distance first", weighted(t, config.SameRegion,
			config.ScorePlugin{Name: config.MinimalDistancePlugin, Weight: 10},
			config.ScorePlugin{Name: config.SeedResourcesMostAllocatedPlugin, Weight: 1}), "nearly-full"},
		{"pack, MinimalDistance measure", weighted(t, config.MinimalDistance,
			config.ScorePlugin{Name: config.MinimalDistancePlugin, Weight: 10},
			config.ScorePlugin{Name: config.SeedResourcesMostAllocatedPlugin, Weight: 1}), "nearly-full"},
		{"distance only: ties by fewest shoots", weighted(t, config.SameRegion, config.ScorePlugin{Name: config.MinimalDistancePlugin, Weight: 1}), "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.profile.Schedule(in, landscape())
			require.NoError(t, res.Err)
			assert.Equal(t, c.want, winner(res))
		})
	}
}

func TestScorePlugins(t *testing.T) {
	shoot := builders.MakeShoot("p", "a").Provider("gcp", "europe-west1").Obj()
	ss := seeds(
		builders.MakeSeed("unlimited"),
		builders.MakeSeed("quarter").Allocatable(4),
		builders.MakeSeed("zero").Allocatable(0),
		builders.MakeSeed("other").Provider("gcp", "europe-east1").Allocatable(4),
	)
	in := &framework.Input{Shoot: shoot, Usage: usageOf(map[string]int{"unlimited": 7, "quarter": 1, "other": 4})}
	assert.Equal(t, []int64{100, 75, 100, 0}, SeedResourcesLeastAllocated{}.Score(in, ss))
	assert.Equal(t, []int64{0, 25, 0, 100}, SeedResourcesMostAllocated{}.Score(in, ss))
	assert.Equal(t, []int64{100, 100, 100, 0}, MinimalDistanceScore{Kind: config.SameRegion}.Score(in, ss))
	assert.Equal(t, []int64{100, 100, 100, 0}, MinimalDistanceScore{Kind: config.MinimalDistance}.Score(in, ss))
	testing := &framework.Input{Shoot: builders.MakeShoot("p", "t").Purpose(gardencorev1beta1.ShootPurposeTesting).Obj(), Usage: in.Usage}
	assert.Equal(t, []int64{100, 100, 100, 100}, MinimalDistanceScore{Kind: config.MinimalDistance}.Score(testing, ss))

	azure := loadRegionConfig(t, "azure")
	az := seeds(builders.MakeSeed("uk").Provider("azure", "uksouth"), builders.MakeSeed("fs").Provider("azure", "francesouth"), builders.MakeSeed("nowhere").Provider("azure", "marsnorth"))
	azIn := &framework.Input{Shoot: builders.MakeShoot("p", "a").Provider("azure", "francecentral").Obj(), RegionConfig: azure, Usage: usageOf(nil)}
	// uksouth 13, francesouth 17, marsnorth unknown: farther than the farthest known.
	assert.Equal(t, []int64{100, 20, 0}, MinimalDistanceScore{Kind: config.MinimalDistance}.Score(azIn, az))
}

func TestNewProfile(t *testing.T) {
	p := gardener(t, config.MinimalDistance)
	assert.Equal(t, "MinimalDistance", p.Strategy.Name())
	assert.Empty(t, p.Scorers, "the default profile is Gardener's: strategy and fewest shoots")
	w := weighted(t, config.SameRegion, config.ScorePlugin{Name: config.SeedResourcesMostAllocatedPlugin, Weight: 3})
	assert.Nil(t, w.Strategy, "scoring replaces the strategy")
	require.Len(t, w.Scorers, 1)
	assert.Equal(t, int64(3), w.Scorers[0].Weight)
	_, err := NewProfile(&config.SchedulerConfiguration{Scoring: &config.Scoring{Plugins: []config.ScorePlugin{{Name: "Nope", Weight: 1}}}})
	assert.ErrorContains(t, err, `unknown score plugin "Nope"`)
}
