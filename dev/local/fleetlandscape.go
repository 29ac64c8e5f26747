package local

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/dev/simulator"
	"github.com/seedscaler/seedscaler/test/framework/manifest"
)

// The fleet landscape is the demo's, many times over: its root seed, ManagedSeedSet and
// SeedAutoscaler are the templates, placed once per region and set of simulator.FleetSets.

// fleetSoil names the root seed of a region: it hosts the control planes of the seeds there.
func fleetSoil(provider, region string) string { return "soil-" + provider + "-" + region }

// FleetLandscape returns the objects of a fleet of seeds seeds, read from the demo's
// manifests in the repository at root: the garden namespace, the three providers' region
// configs and CloudProfiles, a root seed per region, and per set a ManagedSeedSet at its
// replicas and a SeedAutoscaler that keeps it between them and twice as many.
func FleetLandscape(root string, seeds int) ([]*unstructured.Unstructured, error) {
	ns, err := readOne(root, "examples/00-namespace.yaml")
	if err != nil {
		return nil, err
	}
	configs, err := fleetRegionConfigs(root)
	if err != nil {
		return nil, err
	}
	out := append([]*unstructured.Unstructured{ns}, configs...)
	soilTemplate, err := readOne(root, "examples/demo/10-soil.yaml")
	if err != nil {
		return nil, err
	}
	setTemplate, err := readOne(root, "examples/demo/20-managedseedset.yaml")
	if err != nil {
		return nil, err
	}
	autoscalerTemplate, err := readOne(root, fleetAutoscalerFile)
	if err != nil {
		return nil, err
	}

	sets := simulator.FleetSets(seeds)
	soils, regions := fleetRegions(sets)
	var objs []*unstructured.Unstructured
	for _, s := range soils {
		_, zoneNames := fleetZones(s)
		o := soilTemplate.DeepCopy()
		o.SetName(fleetSoil(s.Provider, s.Region))
		if err := setFields(o.Object, map[string]any{
			"spec.provider.type": s.Provider, "spec.provider.region": s.Region, "spec.provider.zones": zoneNames,
		}); err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
	for _, s := range sets {
		_, zoneNames := fleetZones(s)
		set := setTemplate.DeepCopy()
		set.SetName(s.Name)
		labels := map[string]any{"seedscaler.io/set": s.Name}
		seedLabels := map[string]any{"seedscaler.io/set": s.Name, "seed.gardener.cloud/shoots": "allowed"}
		seedConfig := "spec.template.spec.gardenlet.config.seedConfig."
		if err := setFields(set.Object, map[string]any{
			"spec.replicas":                                                 int64(s.Replicas),
			"spec.selector.matchLabels":                                     labels,
			"spec.template.metadata.labels":                                 labels,
			seedConfig + "metadata.labels":                                  seedLabels,
			seedConfig + "spec.provider.type":                               s.Provider,
			seedConfig + "spec.provider.region":                             s.Region,
			seedConfig + "spec.provider.zones":                              zoneNames,
			seedConfig + "spec.backup.provider":                             s.Provider,
			seedConfig + "spec.backup.region":                               s.Region,
			"spec.template.spec.gardenlet.config.resources.capacity.shoots": int64(simulator.FleetSeedCapacity),
			"spec.template.spec.gardenlet.config.resources.reserved.shoots": int64(simulator.FleetSeedReserved),
			"spec.shootTemplate.metadata.labels":                            labels,
			"spec.shootTemplate.spec.cloudProfileName":                      s.Provider,
			"spec.shootTemplate.spec.secretBindingName":                     "seed-operator-" + s.Provider,
			"spec.shootTemplate.spec.region":                                s.Region,
			"spec.shootTemplate.spec.provider.type":                         s.Provider,
		}); err != nil {
			return nil, err
		}
		objs = append(objs, set)

		sa, err := fleetAutoscaler(autoscalerTemplate, s)
		if err != nil {
			return nil, err
		}
		objs = append(objs, sa)
	}
	for _, p := range simulator.FleetProviders() {
		if len(regions[p]) == 0 {
			continue
		}
		cp := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gardencorev1beta1.GroupVersion.String(), "kind": "CloudProfile",
			"metadata": map[string]any{"name": p},
			"spec": map[string]any{
				"type": p, "regions": regions[p],
				"seedSelector": map[string]any{"matchLabels": map[string]any{"seed.gardener.cloud/shoots": "allowed"}},
			},
		}}
		out = append(out, cp)
	}
	return append(out, objs...), nil
}

// fleetAutoscalerFile is the demo's SeedAutoscaler, the template of each fleet set's.
const fleetAutoscalerFile = "examples/demo/30-seedautoscaler.yaml"

// fleetAutoscaler is set s's SeedAutoscaler: the demo's, at the fleet's target utilization,
// between the set's replicas and twice as many.
func fleetAutoscaler(template *unstructured.Unstructured, s simulator.FleetSet) (*unstructured.Unstructured, error) {
	sa := template.DeepCopy()
	sa.SetName(s.Name)
	unstructured.RemoveNestedField(sa.Object, "spec", "scaleAhead") // its windows are the demo's clock
	unstructured.RemoveNestedField(sa.Object, "spec", "behavior")
	return sa, setFields(sa.Object, map[string]any{
		"spec.scaleTargetRef.name": s.Name,
		"spec.minReplicas":         int64(s.Replicas),
		"spec.maxReplicas":         int64(2 * s.Replicas),
		"spec.metrics":             []any{utilizationMetric(simulator.FleetTargetUtilization)},
	})
}

// fleetRegions are the regions of the fleet's sets, each once as the first set placed there
// (the root seed's place), and per provider the regions as its CloudProfile lists them.
func fleetRegions(sets []simulator.FleetSet) (soils []simulator.FleetSet, profileRegions map[string][]any) {
	profileRegions = map[string][]any{}
	seen := map[string]bool{}
	for _, s := range sets {
		if soil := fleetSoil(s.Provider, s.Region); !seen[soil] {
			seen[soil] = true
			soils = append(soils, s)
			zones, _ := fleetZones(s)
			profileRegions[s.Provider] = append(profileRegions[s.Provider], map[string]any{"name": s.Region, "zones": zones})
		}
	}
	return soils, profileRegions
}

// fleetZones are set s's zones as a CloudProfile's region lists them and as names.
func fleetZones(s simulator.FleetSet) (zones, names []any) {
	zones, names = make([]any, len(s.Zones)), make([]any, len(s.Zones))
	for i, z := range s.Zones {
		zones[i], names[i] = map[string]any{"name": z}, z
	}
	return zones, names
}

// fleetRegionConfigs are the region configs of the fleet's providers.
func fleetRegionConfigs(root string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, p := range simulator.FleetProviders() {
		cm, err := readOne(root, "examples/region-config/"+p+"-region-config.yaml")
		if err != nil {
			return nil, err
		}
		out = append(out, cm)
	}
	return out, nil
}

// readOne reads the one object of a manifest file of the repository at root.
func readOne(root, file string) (*unstructured.Unstructured, error) {
	objs, err := manifest.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s holds %d objects, want one", file, len(objs))
	}
	return objs[0], nil
}

// readByKind reads a manifest file of the repository at root that holds one object of each
// kind, by kind.
func readByKind(root, file string) (map[string]*unstructured.Unstructured, error) {
	objs, err := manifest.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if out[o.GetKind()] != nil {
			return nil, fmt.Errorf("%s holds more than one %s, want one of each kind", file, o.GetKind())
		}
		out[o.GetKind()] = o
	}
	return out, nil
}

func utilizationMetric(target int64) map[string]any {
	return map[string]any{"type": "Resource", "resource": map[string]any{
		"name": "shoots", "target": map[string]any{"type": "Utilization", "averageUtilization": target},
	}}
}

// setFields sets each dotted path of fields in obj; a path whose parent is not a map is an
// error, so a template that changed shape fails here rather than make another landscape.
func setFields(obj map[string]any, fields map[string]any) error {
	for path, v := range fields {
		if err := unstructured.SetNestedField(obj, v, strings.Split(path, ".")...); err != nil {
			return fmt.Errorf("setting %s: %w", path, err)
		}
	}
	return nil
}

// ApplyFleetLandscape creates the fleet of seeds seeds (FleetLandscape) and registers its
// root seeds, as their gardenlets would have.
func ApplyFleetLandscape(ctx context.Context, c client.Client, root string, seeds int) error {
	objs, err := FleetLandscape(root, seeds)
	if err != nil {
		return err
	}
	if err := manifest.CreateOrderly(ctx, c, objs); err != nil {
		return err
	}
	for _, o := range objs {
		if o.GetKind() == "Seed" {
			if err := registerRootSeed(ctx, c, o.GetName()); err != nil {
				return err
			}
		}
	}
	return nil
}

// registerRootSeed gives a root seed the status its gardenlet reports: a seed that existed
// before seedscaler, registered, whose heartbeat the simulator renews. The parts may already
// run and write the seed too.
func registerRootSeed(ctx context.Context, c client.Client, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		soil := &gardencorev1beta1.Seed{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, soil); err != nil {
			return err
		}
		soil.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100,
			Description: "Registered before seedscaler started.",
		}
		return c.Status().Update(ctx, soil)
	})
}
