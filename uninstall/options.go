package uninstall

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/scheme"
)

// Options are the flags of `seedscaler prepare-uninstall`.
type Options struct {
	// Kubeconfig is the path of a kubeconfig; empty means $KUBECONFIG, then in-cluster.
	Kubeconfig string
	// Namespace of the release: its Deployments and their pods.
	Namespace string
	// Selector is the label selector of the release's Deployments.
	Selector string
	// LeaseNamespace holds the parts' Leases; Namespace when empty.
	LeaseNamespace string
	// Parts are the names of the release's parts, whose Leases are deleted.
	Parts []string
	// Timeout bounds the wait for the release's pods to stop.
	Timeout time.Duration
	// Known are the parts a release can have, by name: what --parts may name.
	Known map[string]Part
}

// NewOptions returns the defaults for a release whose parts may be those of known.
func NewOptions(known map[string]Part) *Options {
	return &Options{Namespace: os.Getenv("POD_NAMESPACE"), Timeout: 2 * time.Minute, Known: known}
}

// AddFlags registers the flags of prepare-uninstall.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path of a kubeconfig. Empty: $KUBECONFIG, then the in-cluster configuration.")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "Namespace of the release: its Deployments and their pods; $POD_NAMESPACE by default.")
	fs.StringVar(&o.Selector, "selector", o.Selector, "Label selector of the release's Deployments, e.g. app.kubernetes.io/instance=seedscaler,app.kubernetes.io/name=seedscaler; required.")
	fs.StringVar(&o.LeaseNamespace, "lease-namespace", o.LeaseNamespace, "Namespace of the parts' leader election and object lock Leases; --namespace when empty.")
	fs.StringSliceVar(&o.Parts, "parts", o.Parts, "The release's parts, whose Leases are deleted: "+o.knownNames()+".")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long to wait for the release's pods to stop.")
}

func (o *Options) knownNames() string {
	return strings.Join(slices.Sorted(maps.Keys(o.Known)), ", ")
}

// Validate checks the flags, naming the one to fix.
func (o *Options) Validate() error {
	var errs []error
	if o.Namespace == "" {
		errs = append(errs, errors.New("--namespace is required (or $POD_NAMESPACE): the namespace of the release"))
	}
	if strings.TrimSpace(o.Selector) == "" {
		errs = append(errs, errors.New("--selector is required: without it every Deployment of the namespace would be scaled to 0"))
	} else if _, err := labels.Parse(o.Selector); err != nil {
		errs = append(errs, fmt.Errorf("--selector: %w", err))
	}
	if o.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout must be positive, e.g. 2m, not %s", o.Timeout))
	}
	for _, name := range o.Parts {
		if _, ok := o.Known[name]; !ok {
			errs = append(errs, fmt.Errorf("--parts: unknown part %q; the parts are %s", name, o.knownNames()))
		}
	}
	return errors.Join(errs...)
}

// Preparer is the Preparer of the options, with a client of the cluster.
func (o *Options) Preparer() (*Preparer, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	selector, err := labels.Parse(o.Selector)
	if err != nil {
		return nil, fmt.Errorf("--selector: %w", err)
	}
	var parts []Part
	for _, name := range o.Parts {
		part := o.Known[name]
		part.Name = name
		parts = append(parts, part)
	}
	leaseNamespace := o.LeaseNamespace
	if leaseNamespace == "" {
		leaseNamespace = o.Namespace
	}
	cfg, err := (&app.Options{Kubeconfig: o.Kubeconfig, QPS: 20, Burst: 40}).RESTConfig()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	return &Preparer{
		Client: c, Namespace: o.Namespace, Selector: selector, LeaseNamespace: leaseNamespace,
		Parts: parts, Timeout: o.Timeout,
	}, nil
}

// Run prepares the release for helm uninstall (Preparer.Run). It logs with ctx's logger.
func Run(ctx context.Context, o *Options) error {
	p, err := o.Preparer()
	if err != nil {
		return err
	}
	return p.Run(logr.NewContext(ctx, logr.FromContextOrDiscard(ctx).WithName("prepare-uninstall")))
}
