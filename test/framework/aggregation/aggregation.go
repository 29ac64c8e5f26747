// Package aggregation registers aggregated API servers with a kube-apiserver's aggregation
// layer the way a chart does, for runs without one: the adapter in `seedscaler-dev local` and the
// tests, and gardener-apiserver in a test garden.
package aggregation

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// API is a group version an aggregated API server serves, with its version priority.
type API struct {
	schema.GroupVersion
	VersionPriority int64
}

// MetricsAPIs are the group versions the adapter serves, with the version priority the
// chart gives each (v1beta2 is the preferred custom metrics version).
var MetricsAPIs = []API{
	{schema.GroupVersion{Group: "custom.metrics.k8s.io", Version: "v1beta2"}, 200},
	{schema.GroupVersion{Group: "custom.metrics.k8s.io", Version: "v1beta1"}, 100},
	{schema.GroupVersion{Group: "external.metrics.k8s.io", Version: "v1beta1"}, 100},
}

// APIServiceName is the name of the APIService of a group version.
func APIServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// NewAPIService returns an empty APIService object with its name, for gets and deletes.
func NewAPIService(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"})
	u.SetName(name)
	return u
}

// RegisterLocal points the metrics APIs at an adapter listening on localhost:port (see
// RegisterLocalAPIs).
func RegisterLocal(ctx context.Context, c client.Client, namespace, name string, port int32, caBundle []byte) error {
	return RegisterLocalAPIs(ctx, c, namespace, name, port, caBundle, MetricsAPIs)
}

// RegisterLocalAPIs points apis at a server listening on localhost:port: an ExternalName
// Service namespace/name for "localhost" (the kube-apiserver resolves service endpoints, so
// this reaches the loopback), and the APIServices with the CA that signed the server's
// certificate. Existing APIServices of the same names are replaced.
func RegisterLocalAPIs(ctx context.Context, c client.Client, namespace, name string, port int32, caBundle []byte, apis []API) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"},
	}
	if err := c.Create(ctx, svc); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, api := range apis {
		apiService := NewAPIService(APIServiceName(api.GroupVersion))
		apiService.Object["spec"] = map[string]any{
			"group": api.Group, "version": api.Version,
			"groupPriorityMinimum": int64(100), "versionPriority": api.VersionPriority,
			"service":  map[string]any{"namespace": namespace, "name": name, "port": int64(port)},
			"caBundle": base64.StdEncoding.EncodeToString(caBundle),
		}
		if err := client.IgnoreNotFound(c.Delete(ctx, NewAPIService(apiService.GetName()))); err != nil {
			return err
		}
		if err := c.Create(ctx, apiService); err != nil {
			return fmt.Errorf("registering %s: %w", apiService.GetName(), err)
		}
	}
	return nil
}

// Unregister removes what RegisterLocalAPIs created: the APIServices of apis and the
// Service namespace/name. The kube-apiserver then serves none of those group versions.
func Unregister(ctx context.Context, c client.Client, namespace, name string, apis []API) error {
	var errs []error
	for _, api := range apis {
		errs = append(errs, client.IgnoreNotFound(c.Delete(ctx, NewAPIService(APIServiceName(api.GroupVersion)))))
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	errs = append(errs, client.IgnoreNotFound(c.Delete(ctx, svc)))
	return errors.Join(errs...)
}

// WaitAvailable waits until the kube-apiserver reports every metrics APIService Available.
func WaitAvailable(ctx context.Context, c client.Client, timeout time.Duration) error {
	return WaitAPIsAvailable(ctx, c, MetricsAPIs, timeout)
}

// WaitAPIsAvailable waits until the kube-apiserver reports the APIService of every api
// Available.
func WaitAPIsAvailable(ctx context.Context, c client.Client, apis []API, timeout time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		for _, api := range apis {
			name := APIServiceName(api.GroupVersion)
			apiService := NewAPIService(name)
			if err := c.Get(ctx, client.ObjectKey{Name: name}, apiService); err != nil {
				if !wait.Interrupted(err) && ctx.Err() == nil && !strings.Contains(err.Error(), "rate limiter") {
					last = err.Error()
				}
				return false, nil
			}
			if ok, why := available(apiService); !ok {
				last = fmt.Sprintf("%s: %s", name, why)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the APIServices did not become available within %s (last: %s): %w", timeout, last, err)
	}
	return nil
}

func available(apiService *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(apiService.Object, "status", "conditions")
	for _, cond := range conditions {
		m, _ := cond.(map[string]any)
		if m["type"] == "Available" {
			return m["status"] == "True", fmt.Sprintf("%v: %v", m["reason"], m["message"])
		}
	}
	return false, "no Available condition yet"
}

// ServedByAPIServer reports whether an aggregated API server serves gv, such as
// gardener-apiserver serving core.gardener.cloud/v1beta1 in a Gardener garden: the
// APIService of gv names a service. A group version served by CRDs has a local APIService
// (without a service) or, before its first CRD is established, none.
func ServedByAPIServer(ctx context.Context, c client.Reader, gv schema.GroupVersion) (bool, error) {
	apiService := NewAPIService(APIServiceName(gv))
	if err := c.Get(ctx, client.ObjectKey{Name: apiService.GetName()}, apiService); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading APIService %s: %w", apiService.GetName(), err)
	}
	return hasService(apiService), nil
}

func hasService(apiService *unstructured.Unstructured) bool {
	service, found, _ := unstructured.NestedMap(apiService.Object, "spec", "service")
	return found && service != nil
}
