// Package schedulerdiff runs one landscape under gardener-scheduler and under seedscaler's
// scheduler, each in a fresh real garden, and compares where each put every shoot. Shoots
// are created one at a time in the landscape's order, and each is waited for until it is
// bound or reported unschedulable.
//
// Both schedulers decide every shoot on the same garden: gardener-scheduler's run comes
// first, and in seedscaler's run a shoot seedscaler placed otherwise is put back where
// gardener-scheduler put it (deleted and created again, bound there or left unbound) before
// the next shoot, so one difference does not make every later one. gardener-scheduler picks
// among the seeds with the fewest shoots in the order its cache lists them, which is no fixed
// order: a shoot both placed on seeds equally near it (of its region with SameRegion, at the
// same distance with MinimalDistance; of its provider for a shoot of purpose testing) with
// the same number of shoots is a tie, which either scheduler may have chosen, and counts as
// agreeing.
package schedulerdiff

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/scheduler/region"
	"github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/process"
)

// Scheduler names who places the shoots in a run.
type Scheduler string

// The schedulers a landscape runs under.
const (
	Gardener   Scheduler = "gardener"
	Seedscaler Scheduler = "seedscaler"
)

// failedToSchedule starts the description of the last operation both schedulers write on a
// shoot no seed takes (lower case).
const failedToSchedule = "failed to schedule shoot"

// Options configure a comparison.
type Options struct {
	// Landscape is a multi-document YAML: every object but the Shoots is created first, in
	// order (a `status` written as given), then the Shoots one at a time.
	Landscape []byte
	// Strategy is the candidate determination strategy of both schedulers: SameRegion or
	// MinimalDistance.
	Strategy string
	// SeedscalerBinary is the seedscaler binary whose `scheduler` subcommand runs.
	SeedscalerBinary string
	// ShootTimeout is how long a shoot may take to be bound or reported unschedulable.
	ShootTimeout time.Duration
	// LogDir receives the logs of both gardens, in a folder per scheduler.
	LogDir string
	// Progress, when set, receives a line per hundred shoots.
	Progress io.Writer
}

// Placement is where each scheduler put one shoot.
type Placement struct {
	// Shoot is namespace/name.
	Shoot string
	// Gardener and Seedscaler name the seed each scheduler bound the shoot to; empty when it
	// reported the shoot unschedulable.
	Gardener, Seedscaler string
	// Tie is true when the two seeds differ but were equally good for gardener-scheduler:
	// equally near the shoot (the same region with SameRegion, the same distance with
	// MinimalDistance, the same provider for a shoot of purpose testing) and, before the
	// shoot, the same number of shoots.
	Tie bool
}

// Agree says whether both schedulers decided the same for the shoot, or tied.
func (p Placement) Agree() bool { return p.Gardener == p.Seedscaler || p.Tie }

// Result is the comparison of a landscape.
type Result struct {
	Placements []Placement
}

// Agreed is the number of shoots on which both schedulers decided the same.
func (r Result) Agreed() int {
	n := 0
	for _, p := range r.Placements {
		if p.Agree() {
			n++
		}
	}
	return n
}

// Agreement is the share of shoots on which both schedulers decided the same, 0 to 1.
func (r Result) Agreement() float64 {
	if len(r.Placements) == 0 {
		return 1
	}
	return float64(r.Agreed()) / float64(len(r.Placements))
}

// Ties is the number of shoots the two placed on different seeds that were equally good.
func (r Result) Ties() int {
	n := 0
	for _, p := range r.Placements {
		if p.Tie {
			n++
		}
	}
	return n
}

// WriteCSV writes the placements with the columns shoot,gardener,seedscaler.
func (r Result) WriteCSV(w io.Writer) error {
	out := csv.NewWriter(w)
	if err := out.Write([]string{"shoot", "gardener", "seedscaler"}); err != nil {
		return err
	}
	for _, p := range r.Placements {
		if err := out.Write([]string{p.Shoot, p.Gardener, p.Seedscaler}); err != nil {
			return err
		}
	}
	out.Flush()
	return out.Error()
}

// Run compares the landscape under both schedulers.
func Run(ctx context.Context, opts Options) (Result, error) {
	objects, shoots, err := Split(opts.Landscape)
	if err != nil {
		return Result{}, err
	}
	if len(shoots) == 0 {
		return Result{}, errors.New("the landscape holds no Shoot: nothing to compare")
	}
	res := Result{Placements: make([]Placement, len(shoots))}
	for i, shoot := range shoots {
		res.Placements[i].Shoot = shoot.GetNamespace() + "/" + shoot.GetName()
	}
	for _, s := range []Scheduler{Gardener, Seedscaler} {
		if err := runOne(ctx, opts, s, objects, shoots, res.Placements); err != nil {
			return Result{}, fmt.Errorf("under %s's scheduler: %w", s, err)
		}
	}
	return res, nil
}

// Split parses a landscape into the objects created first, as YAML documents in order, and
// the Shoots.
func Split(landscape []byte) (objects []byte, shoots []*unstructured.Unstructured, err error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(landscape), 4096)
	var rest bytes.Buffer
	for i := 1; ; i++ {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return rest.Bytes(), shoots, nil
			}
			return nil, nil, fmt.Errorf("landscape document %d: %w", i, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if obj.GetKind() == "Shoot" {
			if obj.GetNamespace() == "" {
				return nil, nil, fmt.Errorf("landscape document %d: Shoot %s has no metadata.namespace; set the namespace of the shoot's Project", i, obj.GetName())
			}
			if seed, _, _ := unstructured.NestedString(obj.Object, "spec", "seedName"); seed != "" {
				return nil, nil, fmt.Errorf("landscape document %d: Shoot %s/%s is bound already (spec.seedName %s); a landscape's shoots must be unbound", i, obj.GetNamespace(), obj.GetName(), seed)
			}
			shoots = append(shoots, obj)
			continue
		}
		doc, err := yaml.Marshal(obj.Object)
		if err != nil {
			return nil, nil, err
		}
		rest.WriteString("---\n")
		rest.Write(doc)
	}
}

// runOne places the shoots in a fresh garden under one scheduler and writes its decisions
// into placements. Under seedscaler's, every decision is made on the state gardener-scheduler
// decided on (see the package's comment).
func runOne(ctx context.Context, opts Options, s Scheduler, objects []byte, shoots []*unstructured.Unstructured, placements []Placement) (err error) {
	logDir := filepath.Join(opts.LogDir, string(s))
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	g, err := garden.Start(ctx, garden.Options{LogDir: logDir})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, g.Stop()) }()
	if err := g.Apply(ctx, objects); err != nil {
		return err
	}
	switch s {
	case Gardener:
		if _, err := g.StartScheduler(opts.Strategy); err != nil {
			return err
		}
	case Seedscaler:
		p, err := startSeedscaler(g, opts)
		if err != nil {
			return err
		}
		defer p.Stop(10 * time.Second)
	}
	view, err := readLandscape(ctx, g.Client, opts.Strategy)
	if err != nil {
		return err
	}
	usage := map[string]int{} // shoots per seed, as both gardens hold them before each shoot
	for i, shoot := range shoots {
		shoot = shoot.DeepCopy()
		if err := g.Client.Create(ctx, shoot); err != nil {
			return fmt.Errorf("creating Shoot %s/%s: %w", shoot.GetNamespace(), shoot.GetName(), err)
		}
		seed, err := waitDecided(ctx, g.Client, shoot, opts.ShootTimeout)
		if err != nil {
			return err
		}
		p := &placements[i]
		if s == Gardener {
			p.Gardener = seed
		} else {
			p.Seedscaler = seed
			p.Tie = seed != p.Gardener && seed != "" && p.Gardener != "" &&
				view.equallyNear(shoot, seed, p.Gardener) && usage[seed] == usage[p.Gardener]
			if seed != p.Gardener {
				if err := placeAs(ctx, g.Client, shoot, shoots[i], p.Gardener); err != nil {
					return err
				}
			}
		}
		if p.Gardener != "" {
			usage[p.Gardener]++
		}
		if opts.Progress != nil && (i+1)%100 == 0 {
			_, _ = fmt.Fprintf(opts.Progress, "%s: %d of %d shoots placed\n", s, i+1, len(shoots))
		}
	}
	return nil
}

// landscape is what decides whether two seeds were equally good for a shoot: where the seeds
// are, the region configs, and the strategy.
type landscape struct {
	strategy string
	// seeds maps every seed to its provider type and region.
	seeds map[string]place
	// regionConfigs are the region configs by the name of a cloud profile they are for.
	regionConfigs map[string]*region.Config
}

type place struct{ provider, region string }

// equallyNear says whether seeds a and b were in the same group of candidates for the shoot,
// among which gardener-scheduler takes one with the fewest shoots. A shoot of purpose
// testing may go to any seed of its provider. Any other goes, with SameRegion, to the seeds
// of one region; with MinimalDistance, to the seeds at the least distance from its region,
// so two seeds at the same distance (from the region config, or by the Levenshtein fallback
// for regions it does not name) are equally near.
func (l landscape) equallyNear(shoot *unstructured.Unstructured, a, b string) bool {
	pa, pb := l.seeds[a], l.seeds[b]
	if purpose, _, _ := unstructured.NestedString(shoot.Object, "spec", "purpose"); purpose == "testing" {
		return pa.provider == pb.provider
	}
	if pa == pb {
		return true
	}
	if l.strategy != "MinimalDistance" {
		return false
	}
	shootRegion, _, _ := unstructured.NestedString(shoot.Object, "spec", "region")
	shootProvider, _, _ := unstructured.NestedString(shoot.Object, "spec", "provider", "type")
	table, err := l.regionConfigs[cloudProfileName(shoot)].Distances(shootRegion)
	if err != nil {
		return false
	}
	da, okA := table[pa.region]
	db, okB := table[pb.region]
	switch {
	case okA && okB:
		return da == db
	case !okA && !okB:
		return region.Distance(pa.region, pa.provider, shootRegion, shootProvider) ==
			region.Distance(pb.region, pb.provider, shootRegion, shootProvider)
	default:
		return false
	}
}

// cloudProfileName is the name of the profile a shoot refers to, in spec.cloudProfile or the
// older spec.cloudProfileName.
func cloudProfileName(shoot *unstructured.Unstructured) string {
	if name, _, _ := unstructured.NestedString(shoot.Object, "spec", "cloudProfile", "name"); name != "" {
		return name
	}
	name, _, _ := unstructured.NestedString(shoot.Object, "spec", "cloudProfileName")
	return name
}

// readLandscape reads the garden's seeds and region configs.
func readLandscape(ctx context.Context, c client.Client, strategy string) (landscape, error) {
	l := landscape{strategy: strategy, seeds: map[string]place{}, regionConfigs: map[string]*region.Config{}}
	seeds := &unstructured.UnstructuredList{}
	seeds.SetAPIVersion("core.gardener.cloud/v1beta1")
	seeds.SetKind("SeedList")
	if err := c.List(ctx, seeds); err != nil {
		return l, err
	}
	for _, seed := range seeds.Items {
		typ, _, _ := unstructured.NestedString(seed.Object, "spec", "provider", "type")
		r, _, _ := unstructured.NestedString(seed.Object, "spec", "provider", "region")
		l.seeds[seed.GetName()] = place{provider: typ, region: r}
	}
	configMaps := &corev1.ConfigMapList{}
	if err := c.List(ctx, configMaps, client.MatchingLabels{region.LabelPurpose: region.PurposeRegionConfig}); err != nil {
		return l, err
	}
	for i := range configMaps.Items {
		cm := &configMaps.Items[i]
		for _, profile := range strings.Split(cm.Annotations[region.AnnotationCloudProfiles], ",") {
			if profile = strings.TrimSpace(profile); profile != "" {
				l.regionConfigs[profile] = region.Parse(cm)
			}
		}
	}
	return l, nil
}

// otherScheduler names a scheduler that does not run: a shoot that names it stays unbound.
const otherScheduler = "schedulerdiff-unscheduled"

// placeAs puts a shoot seedscaler placed otherwise where gardener-scheduler put it: deleted
// (as a garden requires, with its deletion confirmed), and created again from the
// landscape's document bound to seed, or unbound and left alone when seed is empty.
func placeAs(ctx context.Context, c client.Client, shoot, document *unstructured.Unstructured, seed string) error {
	key := client.ObjectKeyFromObject(shoot)
	confirm := []byte(`{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}`)
	if err := c.Patch(ctx, shoot, client.RawPatch(types.MergePatchType, confirm)); err != nil {
		return fmt.Errorf("confirming the deletion of Shoot %s: %w", key, err)
	}
	if err := c.Delete(ctx, shoot); err != nil {
		return fmt.Errorf("deleting Shoot %s: %w", key, err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, key, shoot.DeepCopy())
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		return fmt.Errorf("shoot %s was not deleted: %w", key, err)
	}
	again := document.DeepCopy()
	if seed != "" {
		err = unstructured.SetNestedField(again.Object, seed, "spec", "seedName")
	} else {
		err = unstructured.SetNestedField(again.Object, otherScheduler, "spec", "schedulerName")
	}
	if err != nil {
		return err
	}
	if err := c.Create(ctx, again); err != nil {
		return fmt.Errorf("creating Shoot %s again as gardener-scheduler placed it (seed %q): %w", key, seed, err)
	}
	return nil
}

// startSeedscaler runs seedscaler's scheduler with Gardener's profile (no score plugins)
// for the shoots of default-scheduler, binding through shoots/binding.
func startSeedscaler(g *garden.Garden, opts Options) (*process.Process, error) {
	config := filepath.Join(g.LogDir, "seedscaler-scheduler.yaml")
	data := fmt.Sprintf(`apiVersion: scheduler.seedscaler.io/v1alpha1
kind: SchedulerConfiguration
schedulerName: default-scheduler
binding: Subresource
strategy: %s
workers: 1
`, opts.Strategy)
	if err := os.WriteFile(config, []byte(data), 0o600); err != nil {
		return nil, err
	}
	p := process.New("seedscaler-scheduler", opts.SeedscalerBinary, g.LogDir, "scheduler",
		"--config="+config, "--kubeconfig="+g.Kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	return p, p.Start()
}

// waitDecided waits until the shoot is bound (its seed) or its scheduler reported it
// unschedulable (""): both schedulers write status.lastOperation {state Pending, description
// "Failed to schedule shoot: …"} then. Events are no answer: gardener-apiserver refuses
// gardener-scheduler's event when its message lists too many seeds. A shoot neither in time
// is an error: a scheduler that decides nothing is no answer either.
func waitDecided(ctx context.Context, c client.Client, shoot *unstructured.Unstructured, timeout time.Duration) (string, error) {
	var seed string
	key := client.ObjectKeyFromObject(shoot)
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		current := &unstructured.Unstructured{}
		current.SetGroupVersionKind(shoot.GroupVersionKind())
		if err := c.Get(ctx, key, current); err != nil {
			return false, err
		}
		if seed, _, _ = unstructured.NestedString(current.Object, "spec", "seedName"); seed != "" {
			return true, nil
		}
		state, _, _ := unstructured.NestedString(current.Object, "status", "lastOperation", "state")
		description, _, _ := unstructured.NestedString(current.Object, "status", "lastOperation", "description")
		return state == "Pending" && strings.HasPrefix(strings.ToLower(description), failedToSchedule), nil
	})
	if err != nil {
		return "", fmt.Errorf("shoot %s was neither bound nor reported unschedulable within %s: %w", key, timeout, err)
	}
	return seed, nil
}
