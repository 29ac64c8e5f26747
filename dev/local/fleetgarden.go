package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seedscaler/seedscaler/dev/simulator"
	"github.com/seedscaler/seedscaler/test/framework/garden"
)

// The fleet in a Gardener garden is the Gardener demo's landscape (examples/gardener/demo)
// many times over, placed as FleetLandscape places the demo's: a CloudProfile and
// credentials per provider, a root seed per region, a ManagedSeedSet and a SeedAutoscaler
// per set of simulator.FleetSets, and a Project per tenant project of the fleet's demand,
// since gardener-apiserver takes a Shoot only in a Project's namespace.

// The Gardener demo's manifests the fleet's objects are made of.
const (
	gardenCloudProfileFile = gardenerLandscape + "/10-cloudprofile.yaml"
	gardenSoilFile         = gardenerLandscape + "/20-soil.yaml"
	gardenSetFile          = gardenerLandscape + "/30-managedseedset.yaml"
)

// fleetMachineTypes is the machine type per provider of the sets' replica shoots' workers,
// each listed in its provider's CloudProfile.
var fleetMachineTypes = map[string]string{"aws": "m5.xlarge", "azure": "Standard_D4s_v5", "gcp": "n2-standard-4"}

// fleetCredentials names a provider's Secret and CredentialsBinding in the garden namespace.
func fleetCredentials(provider string) string { return "infra-" + provider }

// GardenerFleetLandscape returns the objects of a fleet of seeds seeds in Gardener's own
// shapes, read from examples/gardener/demo and the region configs in the repository at root.
// The root seeds carry no shoot capacity, as in FleetLandscape: only the sets' seeds take
// tenants, and only they count as the fleet's.
func GardenerFleetLandscape(root string, seeds int) ([]*unstructured.Unstructured, error) {
	profileTemplate, err := readOne(root, gardenCloudProfileFile)
	if err != nil {
		return nil, err
	}
	soilTemplate, err := readOne(root, gardenSoilFile)
	if err != nil {
		return nil, err
	}
	setDocs, err := readByKind(root, gardenSetFile)
	if err != nil {
		return nil, err
	}
	autoscalerTemplate, err := readOne(root, fleetAutoscalerFile)
	if err != nil {
		return nil, err
	}
	out, err := fleetRegionConfigs(root)
	if err != nil {
		return nil, err
	}
	for _, p := range simulator.FleetConfiguration(seeds).Demand.Projects {
		out = append(out, gardenProject(p)...)
	}

	sets := simulator.FleetSets(seeds)
	soils, regions := fleetRegions(sets)
	var soilObjs, setObjs []*unstructured.Unstructured
	for _, s := range soils {
		_, zoneNames := fleetZones(s)
		soil := fleetSoil(s.Provider, s.Region)
		o := soilTemplate.DeepCopy()
		o.SetName(soil)
		unstructured.RemoveNestedField(o.Object, "status", "capacity")
		unstructured.RemoveNestedField(o.Object, "status", "allocatable")
		if err := setFields(o.Object, map[string]any{
			"spec.provider.type": s.Provider, "spec.provider.region": s.Region, "spec.provider.zones": zoneNames,
			"spec.ingress.domain": "ingress." + soil + ".example.com",
		}); err != nil {
			return nil, err
		}
		soilObjs = append(soilObjs, o)
	}
	for _, s := range sets {
		_, zoneNames := fleetZones(s)
		set, err := gardenFleetSet(setDocs["ManagedSeedSet"], s, fleetSoil(s.Provider, s.Region), zoneNames)
		if err != nil {
			return nil, err
		}
		sa, err := fleetAutoscaler(autoscalerTemplate, s)
		if err != nil {
			return nil, err
		}
		setObjs = append(setObjs, set, sa)
	}
	for _, p := range simulator.FleetProviders() {
		if len(regions[p]) == 0 {
			continue
		}
		cp := profileTemplate.DeepCopy()
		cp.SetName(p)
		if err := setFields(cp.Object, map[string]any{"spec.type": p, "spec.regions": regions[p]}); err != nil {
			return nil, err
		}
		machineTypes, _, _ := unstructured.NestedSlice(cp.Object, "spec", "machineTypes")
		if len(machineTypes) != 1 {
			return nil, fmt.Errorf("%s: want one machine type to name per provider, found %d", gardenCloudProfileFile, len(machineTypes))
		}
		machineTypes[0].(map[string]any)["name"] = fleetMachineTypes[p]
		if err := unstructured.SetNestedSlice(cp.Object, machineTypes, "spec", "machineTypes"); err != nil {
			return nil, err
		}
		secret, binding := setDocs["Secret"].DeepCopy(), setDocs["CredentialsBinding"].DeepCopy()
		secret.SetName(fleetCredentials(p))
		binding.SetName(fleetCredentials(p))
		if err := setFields(binding.Object, map[string]any{"provider.type": p, "credentialsRef.name": fleetCredentials(p)}); err != nil {
			return nil, err
		}
		out = append(out, cp, secret, binding)
	}
	out = append(out, setDocs["ControllerRegistration"])
	out = append(out, soilObjs...)
	return append(out, setObjs...), nil
}

// gardenFleetSet is the fleet set s made from the Gardener demo's ManagedSeedSet: its replica
// shoots run on the region's root seed soil, with the provider's cloud profile, credentials
// and machine type in the region's zones, and register seeds of the fleet's capacity.
func gardenFleetSet(template *unstructured.Unstructured, s simulator.FleetSet, soil string, zoneNames []any) (*unstructured.Unstructured, error) {
	if template == nil {
		return nil, fmt.Errorf("%s holds no ManagedSeedSet", gardenSetFile)
	}
	set := template.DeepCopy()
	set.SetName(s.Name)
	labels := map[string]any{"seedscaler.io/set": s.Name}
	seedConfig := "spec.template.spec.gardenlet.config.seedConfig."
	if err := setFields(set.Object, map[string]any{
		"spec.replicas":                                                 int64(s.Replicas),
		"spec.selector.matchLabels":                                     labels,
		"spec.template.metadata.labels":                                 labels,
		seedConfig + "metadata.labels":                                  labels,
		seedConfig + "spec.provider.type":                               s.Provider,
		seedConfig + "spec.provider.region":                             s.Region,
		seedConfig + "spec.provider.zones":                              zoneNames,
		"spec.template.spec.gardenlet.config.resources.capacity.shoots": fmt.Sprint(simulator.FleetSeedCapacity),
		"spec.template.spec.gardenlet.config.resources.reserved.shoots": fmt.Sprint(simulator.FleetSeedReserved),
		"spec.shootTemplate.metadata.labels":                            labels,
		"spec.shootTemplate.spec.cloudProfile.name":                     s.Provider,
		"spec.shootTemplate.spec.region":                                s.Region,
		"spec.shootTemplate.spec.seedName":                              soil,
		"spec.shootTemplate.spec.credentialsBindingName":                fleetCredentials(s.Provider),
		"spec.shootTemplate.spec.provider.type":                         s.Provider,
	}); err != nil {
		return nil, err
	}
	workers, _, _ := unstructured.NestedSlice(set.Object, "spec", "shootTemplate", "spec", "provider", "workers")
	if len(workers) != 1 {
		return nil, fmt.Errorf("%s: want one worker pool in the shoot template, found %d", gardenSetFile, len(workers))
	}
	if err := setFields(workers[0].(map[string]any), map[string]any{"machine.type": fleetMachineTypes[s.Provider], "zones": zoneNames}); err != nil {
		return nil, err
	}
	return set, unstructured.SetNestedSlice(set.Object, workers, "spec", "shootTemplate", "spec", "provider", "workers")
}

// gardenProject is a tenant project of the fleet: its namespace, labeled as Gardener's
// project controller labels it, and the Project.
func gardenProject(name string) []*unstructured.Unstructured {
	ns := simulator.ProjectNamespacePrefix + name
	return []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{
			"name":   ns,
			"labels": map[string]any{"gardener.cloud/role": "project", "project.gardener.cloud/name": name},
		}}},
		{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"namespace": ns}}},
	}
}

// ApplyGardenerFleetLandscape creates the fleet of seeds seeds (GardenerFleetLandscape) in a
// garden, each object as the garden applies a manifest: its status, such as the root seeds'
// registration, written through the status subresource.
func ApplyGardenerFleetLandscape(ctx context.Context, g *garden.Garden, root string, seeds int) error {
	objs, err := GardenerFleetLandscape(root, seeds)
	if err != nil {
		return err
	}
	// A stream of JSON documents is a manifest to the garden's YAML-or-JSON decoder.
	var docs bytes.Buffer
	for _, o := range objs {
		data, err := json.Marshal(o.Object)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
		docs.Write(data)
		docs.WriteByte('\n')
	}
	return g.Apply(ctx, docs.Bytes())
}
