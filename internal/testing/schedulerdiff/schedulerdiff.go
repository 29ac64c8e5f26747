// Package schedulerdiff runs one landscape under gardener-scheduler and under seedscaler's
// scheduler, each in a fresh real garden, and compares where each put every shoot. Shoots
// are created one at a time in the landscape's order, and each is waited for until it is
// bound or reported unschedulable, so both schedulers decide on the same state.
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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/internal/process"
	"github.com/seedscaler/seedscaler/internal/testing/garden"
)

// Scheduler names who places the shoots in a run.
type Scheduler string

// The schedulers a landscape runs under.
const (
	Gardener   Scheduler = "gardener"
	Seedscaler Scheduler = "seedscaler"
)

// reasonSchedulingFailed is the event reason both schedulers give a shoot no seed takes.
const reasonSchedulingFailed = "SchedulingFailed"

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
}

// Agree says whether both schedulers decided the same for the shoot.
func (p Placement) Agree() bool { return p.Gardener == p.Seedscaler }

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
	placed := map[Scheduler][]string{}
	for _, s := range []Scheduler{Gardener, Seedscaler} {
		seeds, err := runOne(ctx, opts, s, objects, shoots)
		if err != nil {
			return Result{}, fmt.Errorf("under %s's scheduler: %w", s, err)
		}
		placed[s] = seeds
	}
	res := Result{Placements: make([]Placement, len(shoots))}
	for i, shoot := range shoots {
		res.Placements[i] = Placement{
			Shoot:      shoot.GetNamespace() + "/" + shoot.GetName(),
			Gardener:   placed[Gardener][i],
			Seedscaler: placed[Seedscaler][i],
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

// runOne places the shoots in a fresh garden under one scheduler and returns each shoot's
// seed ("" when unschedulable), in order.
func runOne(ctx context.Context, opts Options, s Scheduler, objects []byte, shoots []*unstructured.Unstructured) (_ []string, err error) {
	logDir := filepath.Join(opts.LogDir, string(s))
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	g, err := garden.Start(ctx, garden.Options{LogDir: logDir})
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, g.Stop()) }()
	if err := g.Apply(ctx, objects); err != nil {
		return nil, err
	}
	switch s {
	case Gardener:
		if _, err := g.StartScheduler(opts.Strategy); err != nil {
			return nil, err
		}
	case Seedscaler:
		p, err := startSeedscaler(g, opts)
		if err != nil {
			return nil, err
		}
		defer p.Stop(10 * time.Second)
	}
	seeds := make([]string, len(shoots))
	for i, shoot := range shoots {
		shoot = shoot.DeepCopy()
		if err := g.Client.Create(ctx, shoot); err != nil {
			return nil, fmt.Errorf("creating Shoot %s/%s: %w", shoot.GetNamespace(), shoot.GetName(), err)
		}
		if seeds[i], err = waitDecided(ctx, g.Client, shoot, opts.ShootTimeout); err != nil {
			return nil, err
		}
		if opts.Progress != nil && (i+1)%100 == 0 {
			_, _ = fmt.Fprintf(opts.Progress, "%s: %d of %d shoots placed\n", s, i+1, len(shoots))
		}
	}
	return seeds, nil
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

// waitDecided waits until the shoot is bound (its seed) or a SchedulingFailed event names it
// (""). A shoot neither in time is an error: a scheduler that decides nothing is no answer.
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
		events := &corev1.EventList{}
		if err := c.List(ctx, events, client.InNamespace(key.Namespace)); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == key.Name && e.InvolvedObject.UID == current.GetUID() && e.Reason == reasonSchedulingFailed {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("Shoot %s was neither bound nor reported unschedulable within %s: %w", key, timeout, err)
	}
	return seed, nil
}
