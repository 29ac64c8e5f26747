package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/seedscaler/seedscaler/test/framework/garden"
)

// gardenerLandscape holds Gardener's own objects of the demo's landscape in a real garden.
const gardenerLandscape = "examples/gardener/demo"

// startGarden starts a real garden with gardener-scheduler and gardener-controller-manager,
// creates the profile's landscape in it (the demo's, or the fleet's in Gardener's shapes),
// and writes the stack's kubeconfig.
func (st *Stack) startGarden(ctx context.Context, opts Options) error {
	st.log.Info("Starting a Gardener garden: etcd, kube-apiserver and gardener-apiserver")
	g, err := garden.Start(ctx, garden.Options{LogDir: filepath.Join(st.WorkDir, "logs")})
	if err != nil {
		return err
	}
	st.garden, st.Env, st.Kubeconfig = g, g.Environment, g.Kubeconfig
	if opts.Profile == ProfileFleet {
		st.log.Info("Creating the fleet in Gardener's API", "seeds", opts.FleetSeeds)
		err = ApplyGardenerFleetLandscape(ctx, g, st.Root, opts.FleetSeeds)
	} else {
		err = ApplyGardenerLandscape(ctx, g, st.Root)
	}
	if err != nil {
		return err
	}
	st.log.Info("Starting gardener-scheduler and gardener-controller-manager")
	if _, err := g.StartScheduler("SameRegion"); err != nil {
		return err
	}
	_, err = g.StartControllerManager()
	return err
}

// ApplyGardenerLandscape creates the demo's landscape in a garden: Gardener's own objects from
// examples/gardener/demo in file order, then GCP's region config and the SeedAutoscaler,
// which are the same as in the demo without Gardener. root is the repository's root.
func ApplyGardenerLandscape(ctx context.Context, g *garden.Garden, root string) error {
	files, err := filepath.Glob(filepath.Join(root, gardenerLandscape, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	files = append(files,
		filepath.Join(root, "examples", "region-config", "gcp-region-config.yaml"),
		filepath.Join(root, "examples", "demo", "30-seedautoscaler.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := g.Apply(ctx, data); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// gardenerArgs are the flags the parts take beside Gardener, as the chart's beside-Gardener
// values give them: seedscaler's scheduler binds through shoots/binding, and only the shoots
// that name it.
func gardenerArgs(root string, extra map[string][]string) map[string][]string {
	args := map[string][]string{}
	for part, a := range extra {
		args[part] = a
	}
	args["scheduler"] = append([]string{"--config=" + schedulerConfigBesideGardener(root)}, args["scheduler"]...)
	return args
}

// schedulerConfigBesideGardener is the scheduler's configuration file beside Gardener: it
// names the scheduler the fleet's tenants name with --fleet-scheduler=seedscaler.
func schedulerConfigBesideGardener(root string) string {
	return filepath.Join(root, "examples", "config", "scheduler-gardener.yaml")
}
