//go:build integration

package crds

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

func TestDefaultsAreGardeners(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "defaults")

	set := example(t, "managedseedset.yaml")
	set.SetNamespace("defaults")
	for _, f := range [][]string{{"spec", "replicas"}, {"spec", "updateStrategy"}, {"spec", "revisionHistoryLimit"}} {
		remove(f...)(set.Object)
	}
	require.NoError(t, env.Client.Create(ctx, set))
	got := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(set), got))
	assert.Equal(t, ptr.To[int32](1), got.Spec.Replicas)
	assert.Equal(t, ptr.To[int32](10), got.Spec.RevisionHistoryLimit)
	require.NotNil(t, got.Spec.UpdateStrategy)
	assert.Equal(t, ptr.To(seedmanagementv1alpha1.RollingUpdateStrategyType), got.Spec.UpdateStrategy.Type)
	require.NotNil(t, got.Spec.UpdateStrategy.RollingUpdate)
	assert.Equal(t, ptr.To[int32](0), got.Spec.UpdateStrategy.RollingUpdate.Partition)

	seed := &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: "defaulted"},
		Spec: gardencorev1beta1.SeedSpec{
			Provider: gardencorev1beta1.SeedProvider{Type: "aws", Region: "eu-west-1"},
			Networks: gardencorev1beta1.SeedNetworks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13"},
		},
	}
	require.NoError(t, env.Client.Create(ctx, seed))
	require.NotNil(t, seed.Spec.Settings)
	require.NotNil(t, seed.Spec.Settings.Scheduling)
	assert.True(t, seed.Spec.Settings.Scheduling.Visible, "seeds are visible to the scheduler unless they say otherwise")

	sa := example(t, "seedautoscaler.yaml")
	sa.SetNamespace("defaults")
	remove("spec", "minReplicas")(sa.Object)
	require.NoError(t, env.Client.Create(ctx, sa))
	gotSA := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(sa), gotSA))
	assert.Equal(t, ptr.To[int32](1), gotSA.Spec.MinReplicas)
}

// table reads a list as `kubectl get` does: as a server-side Table.
func table(t *testing.T, path string) *metav1.Table {
	t.Helper()
	httpClient, err := rest.HTTPClientFor(env.Config)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(env.Config.Host, "/")+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	tbl := &metav1.Table{}
	require.NoError(t, json.Unmarshal(body, tbl))
	return tbl
}

// cells maps column name to cell for the row of the named object.
func cells(t *testing.T, tbl *metav1.Table, name string) map[string]string {
	t.Helper()
	for _, row := range tbl.Rows {
		if fmt.Sprint(row.Cells[0]) != name {
			continue
		}
		out := map[string]string{}
		for i, col := range tbl.ColumnDefinitions {
			out[col.Name] = fmt.Sprint(row.Cells[i])
		}
		return out
	}
	require.FailNow(t, "no row", "table has no row for %s", name)
	return nil
}

func TestPrinterColumnsMakeKubectlGetUseful(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "columns")

	seed := &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: "columns"},
		Spec: gardencorev1beta1.SeedSpec{
			Provider: gardencorev1beta1.SeedProvider{Type: "gcp", Region: "europe-west1"},
			Networks: gardencorev1beta1.SeedNetworks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13"},
		},
	}
	require.NoError(t, env.Client.Create(ctx, seed))
	seed.Status.Allocatable = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse("250")}
	seed.Status.Usage = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse("12")}
	meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionTrue, Reason: "HeartbeatFresh"})
	require.NoError(t, env.Client.Status().Update(ctx, seed))
	got := cells(t, table(t, "/apis/core.gardener.cloud/v1beta1/seeds"), "columns")
	assert.Equal(t, "True", got["Ready"])
	assert.Equal(t, "gcp", got["Provider"])
	assert.Equal(t, "europe-west1", got["Region"])
	assert.Equal(t, "12", got["Shoots"])
	assert.Equal(t, "250", got["Allocatable"])

	shoot := &gardencorev1beta1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Name: "columns", Namespace: "columns"},
		Spec: gardencorev1beta1.ShootSpec{
			Provider: gardencorev1beta1.Provider{Type: "gcp"}, Region: "europe-west1", SeedName: ptr.To("columns"),
		},
	}
	require.NoError(t, env.Client.Create(ctx, shoot))
	shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100}
	require.NoError(t, env.Client.Status().Update(ctx, shoot))
	got = cells(t, table(t, "/apis/core.gardener.cloud/v1beta1/namespaces/columns/shoots"), "columns")
	assert.Equal(t, "columns", got["Seed"])
	assert.Equal(t, "europe-west1", got["Region"])
	assert.Equal(t, "Succeeded", got["Status"])

	set := example(t, "managedseedset.yaml")
	set.SetNamespace("columns")
	require.NoError(t, env.Client.Create(ctx, set))
	typedSet := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(set), typedSet))
	typedSet.Status.Replicas, typedSet.Status.ReadyReplicas = 2, 1
	require.NoError(t, env.Client.Status().Update(ctx, typedSet))
	got = cells(t, table(t, "/apis/seedmanagement.gardener.cloud/v1alpha1/namespaces/columns/managedseedsets"), "crazy-botany")
	assert.Equal(t, "3", got["Desired"])
	assert.Equal(t, "2", got["Current"])
	assert.Equal(t, "1", got["Ready"])

	sa := example(t, "seedautoscaler.yaml")
	sa.SetNamespace("columns")
	sa.SetAnnotations(map[string]string{autoscalingv1alpha1.AnnotationPausedReplicas: "3"})
	require.NoError(t, env.Client.Create(ctx, sa))
	typedSA := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(sa), typedSA))
	typedSA.Status.Targets, typedSA.Status.CurrentReplicas = "45%/50%", 3
	typedSA.Status.Reference = "ManagedSeedSet/crazy-botany"
	meta.SetStatusCondition(&typedSA.Status.Conditions, metav1.Condition{Type: autoscalingv1alpha1.SeedAutoscalerScalingActive, Status: metav1.ConditionFalse, Reason: "ScalingPaused"})
	meta.SetStatusCondition(&typedSA.Status.Conditions, metav1.Condition{Type: autoscalingv1alpha1.SeedAutoscalerScalingLimited, Status: metav1.ConditionTrue, Reason: "TooManyReplicas"})
	require.NoError(t, env.Client.Status().Update(ctx, typedSA))
	got = cells(t, table(t, "/apis/autoscaling.seedscaler.io/v1alpha1/namespaces/columns/seedautoscalers"), "crazy-botany")
	assert.Equal(t, "ManagedSeedSet/crazy-botany", got["Reference"], "Kind/Name, as HPA's REFERENCE")
	assert.Equal(t, "45%/50%", got["Targets"])
	assert.Equal(t, "1", got["MinReplicas"])
	assert.Equal(t, "10", got["MaxReplicas"])
	assert.Equal(t, "3", got["Replicas"])
	assert.Equal(t, "False", got["Active"])
	assert.Equal(t, "True", got["Limited"])
	assert.Equal(t, "3", got["Paused"])
	assert.Contains(t, got, "Age")
}

// `kubectl scale managedseedset/<name> --replicas=3` goes through the scale subresource;
// so does every autoscaler. Test it with the generic scale client.
func TestScaleSubresourceChangesReplicas(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "scale")

	set := example(t, "managedseedset.yaml")
	set.SetNamespace("scale")
	set.SetName("scaled")
	set.Object["spec"].(map[string]any)["replicas"] = int64(1)
	require.NoError(t, env.Client.Create(ctx, set))
	typed := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(set), typed))
	typed.Status.Replicas, typed.Status.Selector = 1, "foo=bar"
	require.NoError(t, env.Client.Status().Update(ctx, typed))

	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	scales, err := scale.NewForConfig(env.Config, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
	require.NoError(t, err)

	gr := schema.GroupResource{Group: "seedmanagement.gardener.cloud", Resource: "managedseedsets"}
	s, err := scales.Scales("scale").Get(ctx, gr, "scaled", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), s.Spec.Replicas)
	assert.Equal(t, int32(1), s.Status.Replicas)
	assert.Equal(t, "foo=bar", s.Status.Selector, "the scale subresource must expose the set's selector")

	s.Spec.Replicas = 3
	_, err = scales.Scales("scale").Update(ctx, gr, &autoscalingv1.Scale{ObjectMeta: s.ObjectMeta, Spec: s.Spec}, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(set), typed))
	assert.Equal(t, ptr.To[int32](3), typed.Spec.Replicas)

	s.Spec.Replicas = -1
	_, err = scales.Scales("scale").Update(ctx, gr, &autoscalingv1.Scale{ObjectMeta: s.ObjectMeta, Spec: s.Spec}, metav1.UpdateOptions{})
	assert.Error(t, err, "a negative scale must be refused")
}
