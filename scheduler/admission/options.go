package admission

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/seedscaler/seedscaler/scheduler/controller"
)

// Options are the scheduler's flags for serving the webhook.
type Options struct {
	// Port serves the webhook over HTTPS; 0 serves no webhook.
	Port int
	// Host is the address the webhook listens on; every address when empty.
	Host string
	// CertDir holds the serving certificate, tls.crt and tls.key.
	CertDir string
	// SchedulerUsername is the user the scheduler's own requests come as.
	SchedulerUsername string
}

// AddFlags registers the webhook's flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Port, "webhook-port", 0, "Port the webhook that checks bindings made by others than the scheduler is served on (HTTPS, path "+Path+"); 0 serves none (docs/security.md).")
	fs.StringVar(&o.CertDir, "webhook-cert-dir", "", "Directory with the webhook's serving certificate, tls.crt and tls.key.")
	fs.StringVar(&o.SchedulerUsername, "webhook-scheduler-username", "", "User the scheduler's own requests come as (system:serviceaccount:<namespace>:<name>); the webhook passes its binds, which it checked when it decided them.")
}

// Enabled says whether the webhook is served.
func (o *Options) Enabled() bool { return o.Port != 0 }

// Validate says what is wrong with the flags, naming each and its fix.
func (o *Options) Validate() error {
	if o.Port == 0 {
		return nil
	}
	var errs []error
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--webhook-port=%d is not a port: give 1 to 65535, or 0 to serve no webhook", o.Port))
	}
	if o.CertDir == "" {
		errs = append(errs, errors.New("--webhook-cert-dir is empty: name the directory that holds the webhook's tls.crt and tls.key (the kube-apiserver calls the webhook over HTTPS)"))
	}
	if o.SchedulerUsername == "" {
		errs = append(errs, errors.New("--webhook-scheduler-username is empty: give the scheduler's own user, system:serviceaccount:<namespace>:<service account>, or the webhook checks the scheduler's own binds as if made by hand"))
	} else if strings.TrimSpace(o.SchedulerUsername) != o.SchedulerUsername {
		errs = append(errs, fmt.Errorf("--webhook-scheduler-username=%q has surrounding spaces: no user is named so", o.SchedulerUsername))
	}
	return errors.Join(errs...)
}

// ManagerOptions gives the manager the webhook server; nothing when the webhook is off.
func (o *Options) ManagerOptions(opts *manager.Options) {
	if !o.Enabled() {
		return
	}
	opts.WebhookServer = webhook.NewServer(webhook.Options{Host: o.Host, Port: o.Port, CertDir: o.CertDir})
}

// AddToManager serves the webhook from the manager's webhook server, backed by scheduler,
// which must have been added to the same manager. The server runs on every replica, not only
// the leader: the informers that feed the scheduler's seeds and usage do as well. A replica
// is ready once the server listens and those informers have synced, so the webhook Service
// sends no request to a replica that cannot judge it yet.
func (o *Options) AddToManager(mgr manager.Manager, scheduler *controller.Reconciler) error {
	if !o.Enabled() {
		return nil
	}
	if scheduler.Synced == nil || scheduler.Placer() == nil {
		return errors.New("the binding webhook needs a scheduler added to the manager first")
	}
	server := mgr.GetWebhookServer()
	server.Register(Path, &admission.Webhook{Handler: &Webhook{
		Checker:           scheduler.Placer(),
		SchedulerName:     scheduler.Config.SchedulerName,
		Synced:            scheduler.Synced,
		SchedulerUsername: o.SchedulerUsername,
		Decoder:           admission.NewDecoder(mgr.GetScheme()),
		Recorder:          scheduler.Recorder,
	}})
	started := server.StartedChecker()
	return mgr.AddReadyzCheck("binding-webhook", func(req *http.Request) error {
		if err := started(req); err != nil {
			return err
		}
		if !scheduler.Synced() {
			return errNotSynced
		}
		return nil
	})
}
