package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/manifest"
)

// The prometheus-operator images Up builds from the tool cache's binaries.
const (
	OperatorImage = "seedscaler.local/prometheus-operator:0.85.0"
	ReloaderImage = "seedscaler.local/prometheus-config-reloader:0.85.0"
)

// OperatorOptions say how to run prometheus-operator and its Prometheus.
type OperatorOptions struct {
	// Namespace of the operator and of the Prometheus object.
	Namespace string
	// Name of the Prometheus object; the operator's Service is prometheus-operated.
	Name string
	// ReleaseLabel is the value of the `release` label the Prometheus object selects
	// ServiceMonitors and PrometheusRules by, as kube-prometheus-stack's does.
	ReleaseLabel string
	// ScrapeInterval of every target and of rule evaluation.
	ScrapeInterval time.Duration
}

// InstallPrometheusOperator runs prometheus-operator as a pod with its CRDs, and a
// Prometheus object it turns into a StatefulSet, configured the way kube-prometheus-stack
// configures its own: ServiceMonitors and PrometheusRules of every namespace, selected by a
// release label. It returns the URL this machine reaches Prometheus at. The CRDs come from
// the operator's module in the Go module cache, the one the tool cache's binaries are built
// from.
func (c *Cluster) InstallPrometheusOperator(ctx context.Context, opts OperatorOptions) (fromHost string, err error) {
	cs, err := c.Clientset()
	if err != nil {
		return "", err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return "", err
	}
	sch := runtime.NewScheme()
	_ = apiextensionsv1.AddToScheme(sch)
	cl, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		return "", err
	}
	if err := c.installOperatorCRDs(ctx, cl); err != nil {
		return "", err
	}
	ns := opts.Namespace
	if err := RestrictedNamespace(ctx, cs, ns); err != nil {
		return "", err
	}
	labels := map[string]string{"app.kubernetes.io/name": "prometheus-operator"}
	restricted := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	creates := []func() error{
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-operator"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-operator"},
				Rules:      operatorRules(),
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-operator"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "prometheus-operator"},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus-operator", Namespace: ns}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-operator", Labels: labels},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To[int32](1),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: corev1.PodSpec{
							ServiceAccountName: "prometheus-operator",
							SecurityContext:    restrictedPod(),
							Containers: []corev1.Container{{
								Name: "prometheus-operator", Image: OperatorImage, ImagePullPolicy: corev1.PullNever,
								Args: []string{
									"--prometheus-config-reloader=" + ReloaderImage,
									"--web.listen-address=:8080",
								},
								SecurityContext: restricted,
							}},
						},
					},
				},
			}, metav1.CreateOptions{})
			return err
		},
		// Prometheus discovers targets in every namespace, as kube-prometheus-stack's does.
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-discovery"},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: []string{"get", "list", "watch"}},
					{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
					{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
				},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-discovery"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "prometheus-discovery"},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: ns}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range creates {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("installing prometheus-operator: %w", err)
		}
	}
	if err := c.WaitDeployments(ctx, ns, "app.kubernetes.io/name=prometheus-operator", 2*time.Minute); err != nil {
		return "", err
	}

	interval := opts.ScrapeInterval.String()
	release := map[string]any{"matchLabels": map[string]any{"release": opts.ReleaseLabel}}
	prom := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "Prometheus",
		"metadata":   map[string]any{"name": opts.Name, "namespace": ns},
		"spec": map[string]any{
			"image":                           PrometheusImage,
			"version":                         "v3.15.0",
			"replicas":                        int64(1),
			"serviceAccountName":              "prometheus",
			"scrapeInterval":                  interval,
			"evaluationInterval":              interval,
			"serviceMonitorSelector":          release,
			"serviceMonitorNamespaceSelector": map[string]any{},
			"podMonitorSelector":              release,
			"podMonitorNamespaceSelector":     map[string]any{},
			"ruleSelector":                    release,
			"ruleNamespaceSelector":           map[string]any{},
			"securityContext":                 toMap(restrictedPod()),
		},
	}}
	if err := client.IgnoreAlreadyExists(cl.Create(ctx, prom)); err != nil {
		return "", fmt.Errorf("creating the Prometheus object: %w", err)
	}
	statefulSet := "prometheus-" + opts.Name
	if err := c.poll(ctx, "the operator's Prometheus StatefulSet "+statefulSet, 3*time.Minute, func(ctx context.Context) (bool, string) {
		sts, err := cs.AppsV1().StatefulSets(ns).Get(ctx, statefulSet, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		want := ptr.Deref(sts.Spec.Replicas, 1)
		return sts.Status.ReadyReplicas == want, fmt.Sprintf("%d/%d ready", sts.Status.ReadyReplicas, want)
	}); err != nil {
		return "", fmt.Errorf("%w\n%s", err, c.Diagnose(ctx, ns))
	}
	svc, err := cs.CoreV1().Services(ns).Get(ctx, "prometheus-operated", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone || svc.Spec.ClusterIP == "" {
		// prometheus-operated is headless: reach the pod.
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=prometheus"})
		if err != nil || len(pods.Items) == 0 {
			return "", fmt.Errorf("no Prometheus pod: %v", err)
		}
		return fmt.Sprintf("http://%s:9090", pods.Items[0].Status.PodIP), nil
	}
	return fmt.Sprintf("http://%s:9090", svc.Spec.ClusterIP), nil
}

// installOperatorCRDs creates the monitoring.coreos.com CRDs of the operator's module and
// waits until they are served.
func (c *Cluster) installOperatorCRDs(ctx context.Context, cl client.Client) error {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/prometheus-operator/prometheus-operator")
	cmd.Dir = filepath.Join(c.repo, "hack", "tools", "prometheus-operator")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("locating prometheus-operator's module (hack/tools/prometheus-operator): %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return fmt.Errorf("locating prometheus-operator's module: %q: %v", out, err)
	}
	files, err := manifest.Files(filepath.Join(mod.Dir, "example", "prometheus-operator-crd"))
	if err != nil {
		return err
	}
	var names []string
	for _, f := range files {
		objs, err := manifest.ReadFile(f)
		if err != nil {
			return err
		}
		for _, o := range objs {
			// The operator's CRDs are large: on a busy machine a create may lose its
			// connection, which is worth another try; what the kube-apiserver refuses is not.
			err := retry.OnError(wait.Backoff{Steps: 5, Duration: time.Second, Factor: 2}, func(err error) bool {
				return !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) && !apierrors.IsBadRequest(err)
			}, func() error {
				return client.IgnoreAlreadyExists(cl.Create(ctx, o.DeepCopy()))
			})
			if err != nil {
				return fmt.Errorf("creating CRD %s: %w", o.GetName(), err)
			}
			names = append(names, o.GetName())
		}
	}
	return c.poll(ctx, "the monitoring.coreos.com CRDs", time.Minute, func(ctx context.Context) (bool, string) {
		for _, n := range names {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := cl.Get(ctx, client.ObjectKey{Name: n}, crd); err != nil {
				return false, err.Error()
			}
			established := false
			for _, cond := range crd.Status.Conditions {
				established = established || (cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue)
			}
			if !established {
				return false, n + " not established"
			}
		}
		return true, ""
	})
}

// operatorRules is what prometheus-operator reads and writes to run Prometheus servers.
func operatorRules() []rbacv1.PolicyRule {
	all := []string{"*"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: all, Verbs: all},
		{APIGroups: []string{"apps"}, Resources: []string{"statefulsets", "daemonsets", "deployments"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"services", "services/finalizers", "endpoints"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"nodes", "namespaces"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses"}, Verbs: []string{"get"}},
	}
}

func restrictedPod() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532), FSGroup: ptr.To[int64](65532),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func toMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return m
}
