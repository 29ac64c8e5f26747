//go:build integration

package admission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// schedulerUser is the user the test's scheduler binds as.
const schedulerUser = "system:serviceaccount:seedscaler-system:seedscaler-scheduler"

// startWebhook runs a scheduler that serves the webhook on loopback, registered with the
// kube-apiserver by a ValidatingWebhookConfiguration that matches as the chart's does,
// until the test ends. With leaderElectionID the scheduler elects a leader by that Lease in
// namespace default.
func startWebhook(t *testing.T, leaderElectionID string) *controller.Reconciler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())

	ca, err := pki.NewCA("binding-webhook-ca")
	require.NoError(t, err)
	serving, err := ca.NewServingCert("127.0.0.1")
	require.NoError(t, err)
	certDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(certDir, "tls.crt"), serving.CertPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(certDir, "tls.key"), serving.KeyPEM, 0o600))
	opts := &Options{Port: testenv.FreeLoopbackPort(t), Host: "127.0.0.1", CertDir: certDir, SchedulerUsername: schedulerUser}
	require.NoError(t, opts.Validate())

	cfg := &config.SchedulerConfiguration{}
	config.Default(cfg)
	mgrOpts := manager.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	}
	if leaderElectionID != "" {
		mgrOpts.LeaderElection = true
		mgrOpts.LeaderElectionID = leaderElectionID
		mgrOpts.LeaderElectionNamespace = metav1.NamespaceDefault
	}
	controller.CacheOptions(cfg)(&mgrOpts)
	opts.ManagerOptions(&mgrOpts)
	mgr, err := manager.New(env.Config, mgrOpts)
	require.NoError(t, err)
	scheduler := &controller.Reconciler{Config: cfg}
	require.NoError(t, scheduler.AddToManager(ctx, mgr, prometheus.NewRegistry()))
	require.NoError(t, opts.AddToManager(mgr, scheduler))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	webhookConfig := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "seedscaler-scheduler-binding-"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "binding.scheduler.seedscaler.gardener.cloud",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL:      ptr.To(fmt.Sprintf("https://127.0.0.1:%d%s", opts.Port, Path)),
				CABundle: ca.CertPEM(),
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{gardencorev1beta1.GroupVersion.Group}, APIVersions: []string{"*"}, Resources: []string{"shoots"},
				},
			}},
			MatchConditions: []admissionregistrationv1.MatchCondition{
				{Name: "sets-seed-name", Expression: "has(object.spec.seedName) && object.spec.seedName != '' && (oldObject == null || !has(oldObject.spec.seedName) || oldObject.spec.seedName != object.spec.seedName)"},
				{Name: "not-the-scheduler", Expression: fmt.Sprintf("request.userInfo.username != %q", schedulerUser)},
			},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	require.NoError(t, env.Client.Create(ctx, webhookConfig))

	t.Cleanup(func() {
		require.NoError(t, env.Client.Delete(context.Background(), webhookConfig))
		cancel()
		require.NoError(t, <-done)
	})
	require.Eventually(t, func() bool { return scheduler.Synced != nil && scheduler.Synced() }, 30*time.Second, 20*time.Millisecond)
	return scheduler
}

// warnings records the warnings the kube-apiserver answers a client with.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.list
	w.list = nil
	return list
}

// userClient is a client as the user name, which may do anything (system:masters), with the
// warnings it is answered with.
func userClient(t *testing.T, name string) (client.Client, *warnings) {
	t.Helper()
	cfg, err := env.AddUser(name, "system:masters")
	require.NoError(t, err)
	w := &warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandlerWithContext = w
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	return c, w
}

func createCloudProfile(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, env.Client.Create(context.Background(), &gardencorev1beta1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       gardencorev1beta1.CloudProfileSpec{Type: "gcp", Regions: []gardencorev1beta1.Region{{Name: "europe-west1"}}},
	}))
}

func createSeed(t *testing.T, seed *gardencorev1beta1.Seed) {
	t.Helper()
	ctx := context.Background()
	status := seed.Status.DeepCopy()
	require.NoError(t, env.Client.Create(ctx, seed))
	seed.Status = *status
	require.NoError(t, env.Client.Status().Update(ctx, seed))
}

// An operator who presets spec.seedName gets the scheduler's answer for that seed: refused
// with the scheduler's reason onto a seed that does not exist, is being deleted, is not
// ready, has a taint the shoot does not tolerate or is full; allowed onto a fitting one; and
// allowed onto a full one when the binding is forced, with a warning and an event. The
// scheduler's own binds are not checked.
func TestManualBindingsAreCheckedLikeScheduledOnes(t *testing.T) {
	ctx := context.Background()
	namespace, err := env.Namespace(ctx, "garden-manual")
	require.NoError(t, err)
	createCloudProfile(t, "gcp")
	createSeed(t, builders.MakeSeed("fits").Ready().Allocatable(10).Obj())
	createSeed(t, builders.MakeSeed("not-ready").Ready().Condition(gardencorev1beta1.SeedGardenletReady, metav1.ConditionFalse).Obj())
	createSeed(t, builders.MakeSeed("tainted").Ready().Taint("dedicated", "ops").Obj())
	createSeed(t, builders.MakeSeed("full").Ready().Allocatable(1).Obj())
	createSeed(t, builders.MakeSeed("roomy").Ready().Allocatable(10).Obj())
	createSeed(t, builders.MakeSeed("backed").Backup("gcp").Ready().Allocatable(10).Obj())
	createSeed(t, builders.MakeSeed("backed-roomy").Backup("gcp").Ready().Allocatable(10).Obj())
	createSeed(t, builders.MakeSeed("drained").Ready().Allocatable(10).Annotations(gardencorev1beta1.AnnotationDrain, "true").Obj())
	deleting := builders.MakeSeed("deleting").Ready().Obj()
	deleting.Finalizers = []string{"test.seedscaler.gardener.cloud/keep"}
	createSeed(t, deleting)
	require.NoError(t, env.Client.Delete(ctx, deleting))
	t.Cleanup(func() {
		_ = env.Client.Patch(context.Background(), deleting, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
	})

	scheduler := startWebhook(t, "")
	operator, operatorWarnings := userClient(t, "landscape-operator")
	schedulerClient, _ := userClient(t, schedulerUser)

	// The one place on "full" is taken, as the scheduler's usage shows.
	require.NoError(t, operator.Create(ctx, builders.MakeShoot(namespace, "first").SeedName("full").Obj()))
	require.Eventually(t, func() bool { return scheduler.Ledger.Usage("full") == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		info, ok := scheduler.Seed("deleting")
		return ok && info.DeletionTimestamp != nil
	}, 10*time.Second, 10*time.Millisecond)

	refused := []struct {
		seed    string
		message string
	}{
		{"gone", `spec.seedName "gone": the seed does not take the shoot: SeedNotFound: no such seed exists`},
		{"deleting", `spec.seedName "deleting": the seed does not take the shoot: SeedNotUsable: being deleted`},
		{"not-ready", `spec.seedName "not-ready": the seed does not take the shoot: SeedNotUsable: condition GardenletReady is not True`},
		{"tainted", `spec.seedName "tainted": the seed does not take the shoot: TaintsNotTolerated: taint dedicated=ops is not tolerated`},
		{"full", `spec.seedName "full": the seed does not take the shoot: CapacityExhausted: no capacity left for shoots (allocatable 1)`},
	}
	for _, c := range refused {
		t.Run("refused onto "+c.seed, func(t *testing.T) {
			err := operator.Create(ctx, builders.MakeShoot(namespace, "onto-"+c.seed).SeedName(c.seed).Obj())
			require.Error(t, err)
			assert.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
			assert.Contains(t, err.Error(), c.message)
			assert.Contains(t, err.Error(), AnnotationForceBinding, "the refusal says how to override")
		})
	}

	t.Run("allowed onto a fitting seed", func(t *testing.T) {
		operatorWarnings.take()
		require.NoError(t, operator.Create(ctx, builders.MakeShoot(namespace, "onto-fits").SeedName("fits").Obj()))
		assert.Empty(t, operatorWarnings.take())
	})

	t.Run("an update that sets the seed is checked too", func(t *testing.T) {
		// A shoot of a provider no seed has: the scheduler leaves it pending.
		shoot := builders.MakeShoot(namespace, "pending").Provider("openstack", "europe-west1").Obj()
		require.NoError(t, operator.Create(ctx, shoot))
		err := operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"fits"}}`)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `spec.seedName "fits": the seed does not take the shoot: ProviderMismatch: provider "gcp" is not the shoot's "openstack"`)
	})

	t.Run("a control plane migration is checked like a binding, and as gardener-apiserver checks a move", func(t *testing.T) {
		shoot := builders.MakeShoot(namespace, "migrating").SeedName("backed").Obj()
		require.NoError(t, operator.Create(ctx, shoot))
		err := operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"full"}}`)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `spec.seedName "full": the seed does not take the shoot: CapacityExhausted: no capacity left for shoots (allocatable 1)`)
		err = operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"drained"}}`)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `spec.seedName "drained": the seed does not take the shoot: SeedNotUsable: cordoned: the Seed is annotated seedscaler.io/drain=true and is being drained`)
		err = operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"roomy"}}`)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `spec.seedName "roomy": the seed does not take the shoot: MigrationWithoutBackup: has no spec.backup, which a control plane moving from seed backed needs`)
		require.NoError(t, operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"backed-roomy"}}`))),
			"a migration onto a seed with room and a backup")
		err = operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":null}}`)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "spec.seedName cannot be removed once set")
	})

	t.Run("the scheduler's own binds pass", func(t *testing.T) {
		require.NoError(t, schedulerClient.Create(ctx, builders.MakeShoot(namespace, "by-scheduler").SeedName("tainted").Obj()))
	})

	t.Run("forced onto a full seed", func(t *testing.T) {
		operatorWarnings.take()
		shoot := builders.MakeShoot(namespace, "forced").SeedName("full").Obj()
		shoot.Annotations = map[string]string{AnnotationForceBinding: "evacuating seed x"}
		require.NoError(t, operator.Create(ctx, shoot))
		assert.Equal(t, []string{`spec.seedName "full" is forced by annotation ` + AnnotationForceBinding +
			` ("evacuating seed x") although the seed does not take the shoot: CapacityExhausted: no capacity left for shoots (allocatable 1)`}, operatorWarnings.take())

		var event *eventsv1.Event
		require.Eventually(t, func() bool {
			list := &eventsv1.EventList{}
			if err := env.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
				return false
			}
			for i := range list.Items {
				if list.Items[i].Reason == EventSeedBindingForced && list.Items[i].Regarding.Name == "forced" {
					event = &list.Items[i]
					return true
				}
			}
			return false
		}, 10*time.Second, 20*time.Millisecond, "an event records the forced binding")
		assert.Equal(t, corev1.EventTypeWarning, event.Type)
		assert.Equal(t, "landscape-operator forced the binding to seed full (evacuating seed x), which the scheduler refuses: CapacityExhausted: no capacity left for shoots (allocatable 1)", event.Note)
	})

	t.Run("a dry run of a refused binding is refused alike", func(t *testing.T) {
		err := operator.Create(ctx, builders.MakeShoot(namespace, "dry").SeedName("tainted").Obj(), client.DryRunAll)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "TaintsNotTolerated")
	})
}

// A replica that does not lead still answers, from usage as current as the leader's: the
// informers that feed it run on every replica.
func TestAReplicaThatDoesNotLeadAnswers(t *testing.T) {
	ctx := context.Background()
	namespace, err := env.Namespace(ctx, "garden-follower")
	require.NoError(t, err)
	createCloudProfile(t, "follower")
	createSeed(t, builders.MakeSeed("follower-full").Ready().Allocatable(1).Obj())
	// Another replica holds the lease for the whole test.
	const leaseName = "seedscaler-scheduler-follower"
	require.NoError(t, env.Client.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: leaseName},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("another-replica"),
			LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime:          &metav1.MicroTime{Time: time.Now()},
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}))

	scheduler := startWebhook(t, leaseName)
	operator, _ := userClient(t, "landscape-operator")
	require.NoError(t, operator.Create(ctx, builders.MakeShoot(namespace, "first").CloudProfile("follower").SeedName("follower-full").Obj()))
	require.Eventually(t, func() bool { return scheduler.Ledger.Usage("follower-full") == 1 }, 10*time.Second, 10*time.Millisecond)

	err = operator.Create(ctx, builders.MakeShoot(namespace, "second").CloudProfile("follower").SeedName("follower-full").Obj())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CapacityExhausted: no capacity left for shoots (allocatable 1)")
	lease := &coordinationv1.Lease{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: leaseName}, lease))
	assert.Equal(t, "another-replica", ptr.Deref(lease.Spec.HolderIdentity, ""), "the replica that answered did not lead")
}
