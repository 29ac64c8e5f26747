//go:build integration

package chart

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/scheduler/admission"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

const (
	webhookNamespace = "seedscaler-system"
	webhookService   = "seedscaler-scheduler-webhook"
	webhookSecret    = "seedscaler-scheduler-webhook-tls"
	webhookConfig    = "seedscaler-scheduler-binding"
	webhookName      = "binding.scheduler.seedscaler.gardener.cloud"
)

// The scheduler's binding webhook as installed: a certificate for its Service signed by the
// CA the ValidatingWebhookConfiguration trusts, the same across `helm upgrade`; the
// scheduler's Deployment serves it from the Secret on the port the Service targets; and the
// path is the one the scheduler serves.
func TestSchedulerWebhookKeepsItsCertificateAcrossUpgrades(t *testing.T) {
	env, _, kcFile := apiServer(t)
	ctx := context.Background()
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", webhookNamespace, "--create-namespace", "--wait=false")
	require.NoError(t, err, out)

	secret := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: webhookNamespace, Name: webhookSecret}, secret))
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: webhookConfig}, vwc))
	require.Len(t, vwc.Webhooks, 1)
	hook := vwc.Webhooks[0]
	assert.Equal(t, webhookName, hook.Name)
	assert.Equal(t, secret.Data["ca.crt"], hook.ClientConfig.CABundle, "the webhook configuration trusts the Secret's CA")
	require.NotNil(t, hook.ClientConfig.Service)
	assert.Equal(t, webhookService, hook.ClientConfig.Service.Name)
	assert.Equal(t, admission.Path, *hook.ClientConfig.Service.Path, "the path the scheduler serves")
	assert.Equal(t, admissionregistrationv1.Fail, *hook.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *hook.SideEffects)
	assertServingCertFor(t, secret, webhookService+"."+webhookNamespace+".svc")

	svc := &corev1.Service{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: webhookNamespace, Name: webhookService}, svc))
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, int32(443), svc.Spec.Ports[0].Port)
	assert.Equal(t, intstr.FromString("webhook"), svc.Spec.Ports[0].TargetPort)

	deploy := &appsv1.Deployment{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: webhookNamespace, Name: "seedscaler-scheduler"}, deploy))
	c := deploy.Spec.Template.Spec.Containers[0]
	assert.Contains(t, c.Ports, corev1.ContainerPort{Name: "webhook", ContainerPort: 9443, Protocol: corev1.ProtocolTCP})
	assert.Subset(t, c.Args, []string{"--webhook-port=9443", "--webhook-cert-dir=/var/run/seedscaler/webhook-tls",
		"--webhook-scheduler-username=system:serviceaccount:" + webhookNamespace + ":seedscaler-scheduler"})
	assert.True(t, slices.ContainsFunc(deploy.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == webhookSecret
	}), "the scheduler mounts the webhook's Secret")

	out, err = helm(t, "upgrade", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", webhookNamespace,
		"--wait=false", "--set", "scheduler.webhook.timeoutSeconds=7")
	require.NoError(t, err, out)
	upgraded := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: webhookNamespace, Name: webhookSecret}, upgraded))
	assert.Equal(t, secret.Data, upgraded.Data, "an upgrade keeps the certificate")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: webhookConfig}, vwc))
	assert.Equal(t, secret.Data["ca.crt"], vwc.Webhooks[0].ClientConfig.CABundle, "an upgrade keeps the CA")
	assert.Equal(t, int32(7), *vwc.Webhooks[0].TimeoutSeconds)

	out, err = helm(t, "upgrade", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", webhookNamespace,
		"--wait=false", "--set", "scheduler.webhook.enabled=false")
	require.NoError(t, err, out)
	err = env.Client.Get(ctx, client.ObjectKey{Name: webhookConfig}, vwc)
	assert.True(t, apierrors.IsNotFound(err), "disabled, the webhook is not registered (err=%v)", err)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: webhookNamespace, Name: "seedscaler-scheduler"}, deploy))
	assert.NotContains(t, deploy.Spec.Template.Spec.Containers[0].Args, "--webhook-port=9443")
}

func assertServingCertFor(t *testing.T, secret *corev1.Secret, host string) {
	t.Helper()
	caBlock, _ := pem.Decode(secret.Data["ca.crt"])
	require.NotNil(t, caBlock, "ca.crt is no PEM")
	ca, err := x509.ParseCertificate(caBlock.Bytes)
	require.NoError(t, err)
	leafBlock, _ := pem.Decode(secret.Data["tls.crt"])
	require.NotNil(t, leafBlock, "tls.crt is no PEM")
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	assert.NoError(t, err, "the serving certificate is not valid for %s under the CA", host)
}

// Which requests reach the webhook, and who may force a binding. No scheduler runs here, so
// a request that reaches the webhook fails (failurePolicy Fail): an operator's binding does;
// a tenant's Shoot without seedName, an edit that keeps the seed and the scheduler's own
// bind do not. The force annotation is the operators' alone.
func TestSchedulerWebhookSeesOnlyBindingsAndOnlyOperatorsForce(t *testing.T) {
	env, _, kcFile := apiServer(t)
	const (
		tenantNS  = "garden-tenant"
		operators = "landscape-operators"
	)
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", webhookNamespace,
		"--create-namespace", "--wait=false", "--set", "admission.seedName.allowedGroups={"+operators+"}")
	require.NoError(t, err, out)

	ctx := context.Background()
	admin := env.Client
	tenant, scheduler, operator := shootUsers(t, env, webhookNamespace, tenantNS, operators)

	// The configuration takes effect a moment after it is created: wait for the first
	// binding that reaches the webhook.
	var bindErr error
	require.Eventually(t, func() bool {
		bindErr = operator.Create(ctx, builders.MakeShoot(tenantNS, "manual").SeedName("seed-a").Obj())
		if bindErr == nil {
			_ = admin.Delete(ctx, builders.MakeShoot(tenantNS, "manual").Obj())
		}
		return bindErr != nil
	}, 30*time.Second, 200*time.Millisecond, "the operator's binding never reached the webhook")
	assert.ErrorContains(t, bindErr, webhookName, "the operator's binding was sent to the webhook")

	shoot := builders.MakeShoot(tenantNS, "web").Obj()
	require.NoError(t, tenant.Create(ctx, shoot), "a Shoot without seedName must not reach the webhook")
	require.NoError(t, scheduler.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"seedName":"seed-a"}}`))),
		"the scheduler's own bind must not reach the webhook")
	require.NoError(t, tenant.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"payments"}}}`))),
		"an edit that keeps the seed must not reach the webhook")

	// The force annotation: a tenant may not plant it for a later binding; an operator may.
	// The admission policy takes effect a moment after its binding is created, as the
	// webhook does: wait until a dry run of the tenant's patch meets it, so that no real
	// patch plants the annotation before.
	force := []byte(`{"metadata":{"annotations":{"` + admission.AnnotationForceBinding + `":"evacuation"}}}`)
	require.Eventually(t, func() bool {
		return tenant.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", force), client.DryRunAll) != nil
	}, 30*time.Second, 200*time.Millisecond, "the admission policy never refused the tenant's force annotation")
	err = tenant.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", force))
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "want a refusal, got %v", err)
	assert.ErrorContains(t, err, "may be set or changed only by those who may set spec.seedName")
	assert.ErrorContains(t, err, "alice")
	require.NoError(t, operator.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", force)))
	require.NoError(t, tenant.Patch(ctx, shoot, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"web"}}}`))),
		"the tenant still edits a Shoot that carries the annotation")
}

func TestSchemaRejectsBadWebhookValues(t *testing.T) {
	assertSchemaRejects(t, []string{"scheduler.webhook.failurePolicy=Never"}, "/scheduler/webhook/failurePolicy")
	assertSchemaRejects(t, []string{"scheduler.webhook.timeoutSeconds=0"}, "/scheduler/webhook/timeoutSeconds")
	assertSchemaRejects(t, []string{"scheduler.webhook.port=9443"}, "additional properties 'port' not allowed")
}
