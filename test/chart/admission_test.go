//go:build integration

package chart

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// The chart's ValidatingAdmissionPolicies on a real kube-apiserver, with impersonated users:
// a tenant with every right on Shoots in its project namespace can neither place nor pin a
// Shoot on a seed; the scheduler's ServiceAccount binds; an operator group named in values
// places by hand; seed management objects and SeedAutoscalers are created in the garden
// namespace only.
func TestAdmissionPoliciesDecideWhoPlacesShoots(t *testing.T) {
	env, _, kcFile := apiServer(t)
	const (
		namespace = "seedscaler-system"
		tenantNS  = "garden-tenant"
		operators = "landscape-operators"
	)
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", namespace,
		"--create-namespace", "--wait=false", "--set", "admission.seedName.allowedGroups={"+operators+"}",
		// No scheduler runs here to answer the binding webhook (webhook_test.go).
		"--set", "scheduler.webhook.enabled=false")
	require.NoError(t, err, out)

	ctx := context.Background()
	admin := env.Client
	// The chart creates garden for its Roles when it is missing.
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden"}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	tenant, scheduler, operator := shootUsers(t, env, namespace, tenantNS, operators)

	// A policy takes effect a moment after it is created: wait for the first refusal.
	var err2 error
	require.Eventually(t, func() bool {
		err2 = tenant.Create(ctx, builders.MakeShoot(tenantNS, "preset").SeedName("full-seed").Obj())
		if err2 == nil {
			_ = admin.Delete(ctx, builders.MakeShoot(tenantNS, "preset").Obj())
		}
		return apierrors.IsForbidden(err2) || apierrors.IsInvalid(err2)
	}, 30*time.Second, 200*time.Millisecond, "the tenant's preset seedName was never refused")
	assert.ErrorContains(t, err2, "spec.seedName may be set or changed only by the seedscaler scheduler")
	assert.ErrorContains(t, err2, operators, "the message names who may")
	assert.ErrorContains(t, err2, "alice")

	// Without a seed: allowed, and the scheduler binds it.
	shoot := builders.MakeShoot(tenantNS, "web").Obj()
	require.NoError(t, tenant.Create(ctx, shoot))
	bind := func(c client.Client, name, seed string) error {
		s := &gardencorev1beta1.Shoot{}
		require.NoError(t, admin.Get(ctx, client.ObjectKey{Namespace: tenantNS, Name: name}, s))
		patch := client.MergeFrom(s.DeepCopy())
		s.Spec.SeedName = &seed
		return c.Patch(ctx, s, patch)
	}
	err = bind(tenant, "web", "seed-a")
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "the tenant bound its own shoot: %v", err)
	require.NoError(t, bind(scheduler, "web", "seed-a"), "the scheduler's binding was refused")

	// The tenant edits its bound shoot (not its seed): allowed.
	s := &gardencorev1beta1.Shoot{}
	require.NoError(t, tenant.Get(ctx, client.ObjectKey{Namespace: tenantNS, Name: "web"}, s))
	patch := client.MergeFrom(s.DeepCopy())
	s.Labels = map[string]string{"team": "payments"}
	require.NoError(t, tenant.Patch(ctx, s, patch), "an edit that keeps the seed must pass")

	// Moving a bound shoot (a control plane migration) is a binding too: not the tenant's.
	err = bind(tenant, "web", "seed-b")
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "the tenant migrated its own shoot: %v", err)
	assert.ErrorContains(t, err, `alice may not set it to "seed-b"`)
	require.NoError(t, bind(scheduler, "web", "seed-b"), "the scheduler's migration was refused")

	// An operator of the named group places a shoot by hand.
	require.NoError(t, operator.Create(ctx, builders.MakeShoot(tenantNS, "manual").SeedName("seed-b").Obj()))

	// Seed management objects: in garden, yes; in a project namespace, no, even for an admin.
	set, err := testenv.ExampleManagedSeedSet(tenantNS, "rogue", 1)
	require.NoError(t, err)
	err = admin.Create(ctx, set)
	require.Error(t, err)
	assert.ErrorContains(t, err, "may be created only in the namespace(s) garden")
	set, err = testenv.ExampleManagedSeedSet("garden", "fleet", 1)
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, set))

	// So are SeedAutoscalers, in their own group.
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, testenv.ReadExample("seedautoscaler.yaml", sa))
	rogue := sa.DeepCopy()
	rogue.Namespace = tenantNS
	err = admin.Create(ctx, rogue)
	require.Error(t, err)
	assert.ErrorContains(t, err, "SeedAutoscaler may be created only in the namespace(s) garden")
	require.NoError(t, admin.Create(ctx, sa))
}

// shootUsers creates the namespace tenantNS and returns clients impersonating: the tenant
// alice, who may do anything with Shoots there, as a project member may; the scheduler's
// ServiceAccount of a release in namespace; and bob, a member of the group operators, who
// may do anything.
func shootUsers(t *testing.T, env *testenv.Environment, namespace, tenantNS, operators string) (tenant, scheduler, operator client.Client) {
	t.Helper()
	ctx := context.Background()
	admin := env.Client
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNS}}))
	require.NoError(t, admin.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "shoot-admin"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"shoots"}, Verbs: []string{"*"}}},
	}))
	require.NoError(t, admin.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "shoot-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "shoot-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}},
	}))
	require.NoError(t, admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "operators"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: operators}},
	}))
	as := func(user string, groups ...string) client.Client {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		require.NoError(t, err)
		return c
	}
	return as("alice"),
		as("system:serviceaccount:"+namespace+":seedscaler-scheduler", "system:serviceaccounts", "system:serviceaccounts:"+namespace),
		as("bob", operators)
}
