package simulator

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// The fleet profile: a large landscape for measuring the stack at the size of a real
// garden. Seeds seeds in ManagedSeedSets of FleetSetSize replicas across three providers and
// eight real regions each (the regions of the published region configs in
// examples/region-config), FleetShootsPerSeed tenant shoots per seed on a diurnal wave, a
// SeedAutoscaler on every set, and heartbeat faults on a few seeds.
const (
	// ProfileFleet names the fleet profile (`--profile fleet`).
	ProfileFleet = "fleet"
	// FleetShootsPerSeed is the demand at the wave's peak per seed: 100,000 shoots on
	// 1,000 seeds.
	FleetShootsPerSeed = 100
	// FleetSetSize is the replicas of a fleet set; the last set takes the rest. A set
	// creates its replicas one after the other, so small sets bring a fleet up sooner.
	FleetSetSize = 10
	// FleetDemandStart is the simulated time the tenants wait for the seeds to come up.
	FleetDemandStart = 3 * time.Hour
	// FleetSeedCapacity and FleetSeedReserved are each fleet seed's shoots: 150
	// allocatable, so the peak fills a seed to 67%, under the autoscalers' 70% target.
	FleetSeedCapacity = 160
	FleetSeedReserved = 10
	// FleetTargetUtilization is the fleet SeedAutoscalers' target, in percent.
	FleetTargetUtilization = 70
	// FleetSpeed plays a simulated day in 12 minutes.
	FleetSpeed = 120
	// FleetHeartbeat is how often, in wall-clock time, a fleet gardenlet renews its Lease,
	// at any speed: well within the 40 s after which the garden (gardener-controller-manager,
	// or seedscaler's seed controller) makes a silent seed's GardenletReady Unknown.
	FleetHeartbeat = 15 * time.Second
)

// FleetHeartbeatInterval is the simulated heartbeat interval that is FleetHeartbeat of
// wall-clock time at speed.
func FleetHeartbeatInterval(speed float64) time.Duration {
	return time.Duration(float64(FleetHeartbeat) * speed)
}

// fleetRegions are the fleet's regions per provider, in the order sets are placed.
var fleetRegions = []struct {
	provider string
	regions  []string
	zones    func(region string) []string
}{
	{"aws", []string{"eu-central-1", "us-east-1", "eu-west-1", "us-west-2", "ap-southeast-1", "ap-northeast-1", "ca-central-1", "sa-east-1"},
		func(r string) []string { return []string{r + "a", r + "b", r + "c"} }},
	{"azure", []string{"westeurope", "eastus", "northeurope", "westus2", "southeastasia", "japaneast", "australiaeast", "brazilsouth"},
		func(r string) []string { return []string{r + "-1", r + "-2", r + "-3"} }},
	{"gcp", []string{"europe-west1", "us-central1", "europe-west3", "us-east1", "asia-east1", "asia-northeast1", "australia-southeast1", "southamerica-east1"},
		func(r string) []string { return []string{r + "-a", r + "-b", r + "-c"} }},
}

// FleetSet is one ManagedSeedSet of the fleet.
type FleetSet struct {
	// Name of the set, its seeds are <Name>-<ordinal>.
	Name     string
	Provider string
	Region   string
	Zones    []string
	Replicas int
}

// FleetSets places seeds seeds in sets of FleetSetSize, one region after the other,
// alternating the providers: the first region of each provider, then the second, and so
// on, and again from the first once every region has a set. A set is named by its provider
// and its number among the provider's, aws-1, azure-1, gcp-1, aws-2, ...: short enough for
// Gardener, which takes a Shoot only if its name and its project's have at most 21
// characters together, and a set's replica shoots <set>-<ordinal> live in project garden.
func FleetSets(seeds int) []FleetSet {
	var places []FleetSet
	for i := range len(fleetRegions[0].regions) {
		for _, p := range fleetRegions {
			places = append(places, FleetSet{Provider: p.provider, Region: p.regions[i], Zones: p.zones(p.regions[i])})
		}
	}
	var sets []FleetSet
	perProvider := map[string]int{}
	for n := 0; seeds > 0; n++ {
		s := places[n%len(places)]
		perProvider[s.Provider]++
		s.Name = fmt.Sprintf("%s-%d", s.Provider, perProvider[s.Provider])
		s.Replicas = min(seeds, FleetSetSize)
		seeds -= s.Replicas
		sets = append(sets, s)
	}
	return sets
}

// FleetProviders are the providers of the fleet, each a CloudProfile of the same name.
func FleetProviders() []string {
	out := make([]string, 0, len(fleetRegions))
	for _, p := range fleetRegions {
		out = append(out, p.provider)
	}
	return out
}

// FleetConfiguration is the simulator configuration of a fleet of seeds seeds: after
// FleetDemandStart, tenant demand on a daily wave between 95% and 100% of
// FleetShootsPerSeed per seed, peaking at once (the landscape fills in bursts), spread over the sets' regions by their
// seeds; shoots that live five to fifteen days; seed shoots up in four simulated minutes;
// and the gardenlets of three seeds silent for an hour.
func FleetConfiguration(seeds int) *Configuration {
	peak := seeds * FleetShootsPerSeed
	cfg := &Configuration{
		Speed:            FleetSpeed,
		Tick:             metav1.Duration{Duration: time.Second},
		ProgressInterval: metav1.Duration{Duration: time.Hour},
		Writers:          32,
		Shoots: ShootsConfig{
			CreateDelay: metav1.Duration{Duration: 4 * time.Minute},
			DeleteDelay: metav1.Duration{Duration: 4 * time.Minute},
			FailureRate: 0.001,
		},
		Gardenlets: GardenletsConfig{HeartbeatInterval: metav1.Duration{Duration: FleetHeartbeatInterval(FleetSpeed)}},
		Demand: DemandConfig{
			Profile: ProfileSine,
			Start:   metav1.Duration{Duration: FleetDemandStart},
			// At most 500 new shoots a step: a step that created the whole fleet's tenants
			// at once held back every other shoot's progress for many minutes.
			Burst: 500,
			Sine:  &SineProfile{Min: peak * 95 / 100, Max: peak, Period: metav1.Duration{Duration: 24 * time.Hour}, PeakAt: &metav1.Duration{}},
			Purposes: []WeightedPurpose{
				{Purpose: gardencorev1beta1.ShootPurposeProduction, Weight: 2},
				{Purpose: gardencorev1beta1.ShootPurposeDevelopment, Weight: 5},
				{Purpose: gardencorev1beta1.ShootPurposeEvaluation, Weight: 3},
			},
			// Control planes that tolerate a zone failure: every fleet seed has three zones.
			HighAvailability: 0.2,
			Lifetime: Lifetime{Distribution: DistributionUniform,
				Min: metav1.Duration{Duration: 5 * 24 * time.Hour}, Max: metav1.Duration{Duration: 15 * 24 * time.Hour}},
			NodesCIDR: "10.180.0.0/16",
		},
	}
	for i := range 20 {
		cfg.Demand.Projects = append(cfg.Demand.Projects, fmt.Sprintf("fleet-%02d", i))
	}
	sets := FleetSets(seeds)
	// One location per region, weighted by the seeds there (a region may hold several sets).
	index := map[string]int{}
	for _, s := range sets {
		l := Location{Provider: s.Provider, Region: s.Region, CloudProfile: s.Provider}
		i, ok := index[l.Key()]
		if !ok {
			i = len(cfg.Demand.Locations)
			index[l.Key()] = i
			cfg.Demand.Locations = append(cfg.Demand.Locations, l)
		}
		cfg.Demand.Locations[i].Weight += float64(s.Replicas)
	}
	for i := range min(3, len(sets)) {
		cfg.Faults = append(cfg.Faults, Fault{
			Type: FaultHeartbeat, Seed: fmt.Sprintf("%s-0", sets[i].Name),
			At: metav1.Duration{Duration: 2 * time.Hour}, Duration: metav1.Duration{Duration: time.Hour},
		})
	}
	SetDefaults(cfg)
	return cfg
}
