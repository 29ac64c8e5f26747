//go:build integration

package chart

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// access is one request a ServiceAccount may or may not make.
type access struct {
	verb, group, resource, namespace string
	// path, instead of a resource: a non-resource URL such as /metrics.
	path string
}

func (a access) String() string {
	if a.path != "" {
		return a.verb + " " + a.path
	}
	where := "cluster-wide"
	if a.namespace != "" {
		where = "in " + a.namespace
	}
	return fmt.Sprintf("%s %s.%s %s", a.verb, a.resource, a.group, where)
}

// can asks the kube-apiserver, as `kubectl auth can-i --as` does, whether user may make a.
func can(t *testing.T, env *testenv.Environment, user string, a access) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
		Groups: []string{"system:serviceaccounts", "system:authenticated"}}}
	if a.path != "" {
		sar.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Verb: a.verb, Path: a.path}
	} else {
		sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: a.resource, Namespace: a.namespace}
	}
	require.NoError(t, env.Client.Create(context.Background(), sar))
	return sar.Status.Allowed
}

func leases(verb, namespace string) access {
	return access{verb: verb, group: "coordination.k8s.io", resource: "leases", namespace: namespace}
}

// Installed into a real kube-apiserver, every part's ServiceAccount may do what its work
// needs where the work is, and nothing of the same kind anywhere else: Leases are written
// in the release namespace only (never kube-system's leader leases, kube-node-lease's node
// heartbeats or the gardenlets' heartbeats that decide GardenletReady), heartbeats are read
// only, ConfigMaps read in the region configs' namespace, ControllerRevisions written in the
// seed management namespaces, Pods read in the release namespace; Prometheus' ServiceAccount
// may get /metrics, and nobody else.
func TestEveryPartHasTheLeastRightsItNeeds(t *testing.T) {
	env, _, kcFile := apiServer(t)
	const (
		ns         = "seedscaler-system"
		heartbeats = "gardener-system-seed-lease"
		garden     = "garden"
	)
	ctx := context.Background()
	// The seed management namespaces exist already (the chart must not take them over);
	// the heartbeat namespace does not yet (the chart creates it).
	for _, name := range []string{garden, "garden-2"} {
		require.NoError(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", ns, "--create-namespace", "--wait=false",
		"--set", "seedController.replicasMode=object-locks,seedController.leaderElect=false",
		"--set", "setController.replicasMode=object-locks,setController.leaderElect=false",
		"--set", "autoscaler.replicasMode=object-locks,autoscaler.leaderElect=false",
		"--set", "admission.seedManagementNamespaces={garden,garden-2}",
		"--set", "monitoring.prometheusServiceAccounts[0].namespace=monitoring,monitoring.prometheusServiceAccounts[0].name=prometheus")
	require.NoError(t, err, out)
	gardenNS := &corev1.Namespace{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: garden}, gardenNS))
	assert.NotContains(t, gardenNS.Annotations, "meta.helm.sh/release-name", "the chart took over a namespace it did not create")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: heartbeats}, &corev1.Namespace{}), "the heartbeat namespace the seed controller's Role needs")

	sa := func(part string) string { return "system:serviceaccount:" + ns + ":seedscaler-" + part }
	elsewhere := []string{"kube-system", "kube-node-lease", heartbeats, "default", garden}
	writes := []string{"create", "update", "delete"}
	type rights struct{ allowed, denied []access }
	want := map[string]*rights{}
	for _, part := range []string{"scheduler", "seed-controller", "set-controller", "exporter", "adapter", "autoscaler"} {
		r := &rights{
			// Secure metrics: every part reviews its scrapers' tokens and access.
			allowed: []access{
				{verb: "create", group: "authentication.k8s.io", resource: "tokenreviews"},
				{verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews"},
			},
			denied: []access{
				{verb: "get", path: "/metrics"},
				leases("list", ""), leases("create", ""),
				{verb: "get", resource: "pods", namespace: "kube-system"}, {verb: "list", resource: "pods"},
				{verb: "list", resource: "configmaps"}, {verb: "get", resource: "configmaps", namespace: "kube-system"},
				{verb: "create", group: "apps", resource: "controllerrevisions", namespace: "default"},
				{verb: "list", group: "apps", resource: "controllerrevisions"},
			},
		}
		for _, where := range elsewhere {
			for _, verb := range writes {
				r.denied = append(r.denied, leases(verb, where))
			}
		}
		want[part] = r
	}
	for _, part := range []string{"seed-controller", "set-controller", "autoscaler"} {
		// Object locks, and the pods of their holders, in the lock namespace.
		for _, verb := range append([]string{"get", "list"}, writes...) {
			want[part].allowed = append(want[part].allowed, leases(verb, ns))
		}
		want[part].allowed = append(want[part].allowed, access{verb: "get", resource: "pods", namespace: ns})
	}
	// The leader-elected scheduler: its Lease in the release namespace.
	for _, verb := range append([]string{"get"}, writes...) {
		want["scheduler"].allowed = append(want["scheduler"].allowed, leases(verb, ns))
	}
	for _, part := range []string{"exporter", "adapter"} {
		want[part].denied = append(want[part].denied, leases("create", ns), access{verb: "get", resource: "pods", namespace: ns})
	}
	// Heartbeats: read, never written.
	for _, verb := range []string{"get", "list", "watch"} {
		want["seed-controller"].allowed = append(want["seed-controller"].allowed, leases(verb, heartbeats))
	}
	for _, part := range []string{"scheduler", "set-controller", "autoscaler", "exporter", "adapter"} {
		want[part].denied = append(want[part].denied, leases("get", heartbeats))
	}
	// Region configs in their namespace only.
	for _, verb := range []string{"get", "list", "watch"} {
		want["scheduler"].allowed = append(want["scheduler"].allowed, access{verb: verb, resource: "configmaps", namespace: garden})
	}
	want["scheduler"].denied = append(want["scheduler"].denied, access{verb: "get", resource: "configmaps", namespace: ns},
		access{verb: "update", resource: "configmaps", namespace: garden})
	// ControllerRevisions in every seed management namespace.
	for _, where := range []string{garden, "garden-2"} {
		for _, verb := range []string{"list", "watch", "create", "delete"} {
			want["set-controller"].allowed = append(want["set-controller"].allowed,
				access{verb: verb, group: "apps", resource: "controllerrevisions", namespace: where})
		}
		want["scheduler"].denied = append(want["scheduler"].denied, access{verb: "create", group: "apps", resource: "controllerrevisions", namespace: where})
	}

	for part, r := range want {
		t.Run(part, func(t *testing.T) {
			for _, a := range r.allowed {
				assert.True(t, can(t, env, sa(part), a), "%s may not %s", part, a)
			}
			for _, a := range r.denied {
				assert.False(t, can(t, env, sa(part), a), "%s may %s", part, a)
			}
		})
	}
	t.Run("prometheus", func(t *testing.T) {
		assert.True(t, can(t, env, "system:serviceaccount:monitoring:prometheus", access{verb: "get", path: "/metrics"}))
		assert.False(t, can(t, env, "system:serviceaccount:monitoring:prometheus", access{verb: "get", path: "/debug/pprof/"}),
			"the metrics reader grants more than /metrics")
		assert.False(t, can(t, env, "system:serviceaccount:monitoring:other", access{verb: "get", path: "/metrics"}))
	})
}
