package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/aggregation"
)

// Helm runs the helm binary against the cluster and returns its combined output.
func (c *Cluster) Helm(ctx context.Context, helm string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, helm, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "HELM_CACHE_HOME="+c.path("helm", "cache"),
		"HELM_CONFIG_HOME="+c.path("helm", "config"), "HELM_DATA_HOME="+c.path("helm", "data"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// RestrictedNamespace creates a namespace that enforces the restricted Pod Security Standard.
func RestrictedNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
		"pod-security.kubernetes.io/warn":    "restricted",
	}}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// PrometheusOptions say what the in-cluster Prometheus scrapes.
type PrometheusOptions struct {
	// Namespace Prometheus runs in.
	Namespace string
	// ScrapeNamespace holds the Services to scrape: those labeled
	// app.kubernetes.io/name=seedscaler, on their port named "metrics".
	ScrapeNamespace string
	// RulesConfigMap, in ScrapeNamespace, holds rule files (the chart's alerts): Prometheus
	// loads a copy of them. Empty: no rules.
	RulesConfigMap string
	// ScrapeInterval of every target and of rule evaluation.
	ScrapeInterval time.Duration
	// PlainMetrics scrapes plain HTTP, for a chart installed with metrics.secure=false.
	// Otherwise HTTPS with Prometheus' ServiceAccount token, which the chart's
	// metrics-reader ClusterRole must be bound to (monitoring.prometheusServiceAccounts).
	PlainMetrics bool
}

// PrometheusService is the name of the in-cluster Prometheus' Service.
const PrometheusService = "prometheus"

// InstallPrometheus runs Prometheus as a pod of the cluster, from the image Up imported. It
// discovers the chart's metrics Services through the Kubernetes API, as a Prometheus in a
// garden cluster would, and loads the rules ConfigMap. It returns the in-cluster URL and the
// URL this machine reaches it at (the Service's cluster IP).
func (c *Cluster) InstallPrometheus(ctx context.Context, opts PrometheusOptions) (inCluster, fromHost string, err error) {
	cs, err := c.Clientset()
	if err != nil {
		return "", "", err
	}
	ns := opts.Namespace
	if err := RestrictedNamespace(ctx, cs, ns); err != nil {
		return "", "", err
	}
	labels := map[string]string{"app.kubernetes.io/name": "prometheus"}
	interval := opts.ScrapeInterval.String()
	// The parts' certificates are self-signed and made when their pods start: the token is
	// what the parts check.
	scheme := `    scheme: https
    authorization:
      credentials_file: /var/run/secrets/kubernetes.io/serviceaccount/token
    tls_config:
      insecure_skip_verify: true
`
	if opts.PlainMetrics {
		scheme = ""
	}
	config := fmt.Sprintf(`global:
  scrape_interval: %[1]s
  evaluation_interval: %[1]s
rule_files: [/etc/prometheus/rules/*.yaml]
scrape_configs:
  - job_name: seedscaler
%[3]s    kubernetes_sd_configs:
      - role: endpoints
        namespaces: {names: [%[2]s]}
    relabel_configs:
      - source_labels: [__meta_kubernetes_service_label_app_kubernetes_io_name, __meta_kubernetes_endpoint_port_name]
        regex: seedscaler;metrics
        action: keep
      # As the chart's ServiceMonitors name it: seedscaler-<part>.
      - source_labels: [__meta_kubernetes_service_label_app_kubernetes_io_component]
        target_label: job
        replacement: seedscaler-$1
      - source_labels: [__meta_kubernetes_pod_name]
        target_label: pod
`, interval, opts.ScrapeNamespace, scheme)
	objects := []func() error{
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: PrometheusService}}, metav1.CreateOptions{})
			return err
		},
		// Cluster-wide discovery, as kube-prometheus-stack's Prometheus has: nothing of
		// Prometheus' lives in the namespace it scrapes.
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-" + ns},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: []string{"get", "list", "watch"}},
					{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
				},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-" + ns},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "prometheus-" + ns},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: PrometheusService, Namespace: ns}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "prometheus-config"},
				Data:       map[string]string{"prometheus.yml": config},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			rules := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-rules"}}
			if opts.RulesConfigMap != "" {
				given, err := cs.CoreV1().ConfigMaps(opts.ScrapeNamespace).Get(ctx, opts.RulesConfigMap, metav1.GetOptions{})
				if err != nil {
					return err
				}
				rules.Data = given.Data
			}
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, rules, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: PrometheusService, Labels: labels},
				Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{
					{Name: "web", Port: 9090, TargetPort: intstr.FromString("web")},
				}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.AppsV1().Deployments(ns).Create(ctx, prometheusDeployment(labels), metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range objects {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", "", fmt.Errorf("installing Prometheus: %w", err)
		}
	}
	if err := c.WaitDeployments(ctx, ns, "app.kubernetes.io/name=prometheus", 2*time.Minute); err != nil {
		return "", "", err
	}
	svc, err := cs.CoreV1().Services(ns).Get(ctx, PrometheusService, metav1.GetOptions{})
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("http://%s.%s.svc:9090", PrometheusService, ns), fmt.Sprintf("http://%s:9090", svc.Spec.ClusterIP), nil
}

// UninstallPrometheus removes what InstallPrometheus made in namespace ns: the namespace
// and Prometheus' cluster-wide discovery role. What is gone already is no error.
func (c *Cluster) UninstallPrometheus(ctx context.Context, ns string) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	return errors.Join(
		client.IgnoreNotFound(cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})),
		client.IgnoreNotFound(cs.RbacV1().ClusterRoleBindings().Delete(ctx, "prometheus-"+ns, metav1.DeleteOptions{})),
		client.IgnoreNotFound(cs.RbacV1().ClusterRoles().Delete(ctx, "prometheus-"+ns, metav1.DeleteOptions{})),
	)
}

func prometheusDeployment(labels map[string]string) *appsv1.Deployment {
	volumes := []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "prometheus-config"}}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	volumes = append(volumes, corev1.Volume{Name: "rules", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "prometheus-rules"}}}})
	mounts := []corev1.VolumeMount{{Name: "config", MountPath: "/etc/prometheus/config"}, {Name: "data", MountPath: "/prometheus"},
		{Name: "rules", MountPath: "/etc/prometheus/rules"}}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: PrometheusService, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName: PrometheusService,
					SecurityContext:    restrictedPod(),
					Containers: []corev1.Container{{
						Name:            "prometheus",
						Image:           PrometheusImage,
						ImagePullPolicy: corev1.PullNever,
						Args: []string{"--config.file=/etc/prometheus/config/prometheus.yml", "--storage.tsdb.path=/prometheus",
							"--web.listen-address=:9090", "--web.enable-lifecycle"},
						Ports: []corev1.ContainerPort{{Name: "web", ContainerPort: 9090}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Path: "/-/ready", Port: intstr.FromString("web")}}, PeriodSeconds: 2},
						VolumeMounts: mounts,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: volumes,
				},
			},
		},
	}
}

// WaitDeployments waits until every Deployment in ns matching selector is Available with
// all its replicas updated and ready. On timeout the error holds Diagnose's report.
func (c *Cluster) WaitDeployments(ctx context.Context, ns, selector string, timeout time.Duration) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	err = c.poll(ctx, fmt.Sprintf("Deployments %q in %s", selector, ns), timeout, func(ctx context.Context) (bool, string) {
		list, err := cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err.Error()
		}
		if len(list.Items) == 0 {
			return false, "none yet"
		}
		for _, d := range list.Items {
			want := ptr.Deref(d.Spec.Replicas, 1)
			s := d.Status
			if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != want || s.ReadyReplicas != want || s.AvailableReplicas != want || s.Replicas != want {
				return false, fmt.Sprintf("%s: %d/%d ready, %d updated, %d in all", d.Name, s.ReadyReplicas, want, s.UpdatedReplicas, s.Replicas)
			}
		}
		return true, ""
	})
	if err != nil {
		return fmt.Errorf("%w\n%s", err, c.Diagnose(ctx, ns))
	}
	return nil
}

// Diagnose reports the pods of the namespaces with their status, the namespaces' events and
// the last log lines of every container that is not ready: what a failed wait prints.
func (c *Cluster) Diagnose(ctx context.Context, namespaces ...string) string {
	cs, err := c.Clientset()
	if err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var b strings.Builder
	for _, ns := range namespaces {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			fmt.Fprintf(&b, "pods of %s: %v\n", ns, err)
			continue
		}
		fmt.Fprintf(&b, "=== pods in %s\n", ns)
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "%s: %s", p.Name, p.Status.Phase)
			for _, cond := range p.Status.Conditions {
				if cond.Status != corev1.ConditionTrue {
					fmt.Fprintf(&b, ", %s=%s (%s)", cond.Type, cond.Status, cond.Message)
				}
			}
			b.WriteString("\n")
			for _, st := range p.Status.ContainerStatuses {
				fmt.Fprintf(&b, "  %s: ready=%t restarts=%d %s\n", st.Name, st.Ready, st.RestartCount, containerState(st))
				if st.Ready {
					continue
				}
				for _, previous := range []bool{false, true} {
					logs, err := cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: st.Name, TailLines: ptr.To[int64](20), Previous: previous}).DoRaw(ctx)
					if err == nil && len(logs) > 0 {
						fmt.Fprintf(&b, "  --- last lines (previous=%t):\n%s\n", previous, indent(string(logs)))
					}
				}
			}
		}
		events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		sort.Slice(events.Items, func(i, j int) bool { return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp) })
		fmt.Fprintf(&b, "=== events in %s\n", ns)
		items := events.Items
		if len(items) > 40 {
			items = items[len(items)-40:]
		}
		for _, e := range items {
			fmt.Fprintf(&b, "%s %s %s/%s: %s (x%d)\n", e.Type, e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message, e.Count)
		}
	}
	return b.String()
}

func containerState(st corev1.ContainerStatus) string {
	switch {
	case st.State.Waiting != nil:
		return "waiting: " + st.State.Waiting.Reason + " " + st.State.Waiting.Message
	case st.State.Terminated != nil:
		return fmt.Sprintf("terminated: %s (exit %d)", st.State.Terminated.Reason, st.State.Terminated.ExitCode)
	default:
		return "running"
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// ChartOptions say how to install the chart.
type ChartOptions struct {
	// Helm is the helm binary.
	Helm string
	// Chart is the chart's directory.
	Chart string
	// Release and Namespace of the install; the namespace enforces restricted Pod Security.
	Release, Namespace string
	// ValuesFiles are helm --values files, applied before Values.
	ValuesFiles []string
	// Values are helm --set arguments, name=value.
	Values []string
}

// InstallChart installs the chart as a user would, with `helm install --wait`, and waits
// until every Deployment of the release is Available and the metrics APIServices the
// adapter serves are Available (helm does not wait for those).
func (c *Cluster) InstallChart(ctx context.Context, opts ChartOptions) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	if err := RestrictedNamespace(ctx, cs, opts.Namespace); err != nil {
		return err
	}
	args := []string{"install", opts.Release, opts.Chart, "--namespace", opts.Namespace, "--wait", "--timeout", "3m"}
	for _, f := range opts.ValuesFiles {
		args = append(args, "--values", f)
	}
	for _, v := range opts.Values {
		args = append(args, "--set", v)
	}
	if out, err := c.Helm(ctx, opts.Helm, args...); err != nil {
		return fmt.Errorf("%w\n%s\n%s", err, out, c.Diagnose(ctx, opts.Namespace))
	}
	if err := c.WaitDeployments(ctx, opts.Namespace, "app.kubernetes.io/instance="+opts.Release, 2*time.Minute); err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	if err := aggregation.WaitAvailable(ctx, cl, 2*time.Minute); err != nil {
		return fmt.Errorf("%w\n%s", err, c.Diagnose(ctx, opts.Namespace))
	}
	return nil
}
