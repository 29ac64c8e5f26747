//go:build integration

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// An operator drains a seed of the demo set with `kubectl annotate managedseed ...
// seedscaler.io/drain=true`: the scheduler migrates its shoots to the other seeds, none of
// them ever above its allocatable, and once demand falls the set removes the drained, empty
// replica first. The whole stack runs as processes, the simulator playing the migrations.
func TestDrainEmptiesASeedAndTheSetRemovesIt(t *testing.T) {
	klog.SetOutput(os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := startSuiteStack(ctx, t, "e2e-drain")
	c := st.Env.Client
	w := newWatcher(ctx, t, st)
	waitFor := waiter(t, st)

	// 80 shoots: ceil(80 / (50 × 70%)) = 3 seeds.
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenants}}))
	for i := range 80 {
		require.NoError(t, c.Create(ctx, builders.MakeShoot(tenants, fmt.Sprintf("tenant-%03d", i)).Obj()))
	}
	waitFor(func() bool { return unbound(ctx, t, c) == 0 && readyReplicas(ctx, t, c) >= 3 }, 5*time.Minute,
		"the 80 shoots were never bound on 3 ready seeds")

	// Drain the seed with the fewest tenants, by its ManagedSeed.
	drained := quietestSeed(ctx, t, c)
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: drained}, ms))
	patch := client.MergeFrom(ms.DeepCopy())
	metav1.SetMetaDataAnnotation(&ms.ObjectMeta, gardencorev1beta1.AnnotationDrain, "true")
	require.NoError(t, c.Patch(ctx, ms, patch))

	onDrained := func() int {
		n := 0
		for _, s := range tenantShoots(ctx, t, c) {
			for _, seed := range usage.SeedNames(&s) {
				if seed == drained {
					n++
				}
			}
		}
		return n
	}
	waitFor(func() bool { return onDrained() == 0 }, 4*time.Minute, "the drained seed still hosts shoots")
	// The scheduler dashboard's panel shows the drained seed's shoots while it is drained.
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	exprs, err := dashboards.Expressions(filepath.Join(root, "dashboards"))
	require.NoError(t, err)
	prom := promQuerier(t, st.Prometheus.URL)
	waitFor(func() bool {
		res, _, _, err := prom.Query(ctx, dashboards.Resolve(exprs[drainPanel], ".*"), time.Now())
		return err == nil && strings.Contains(res.String(), fmt.Sprintf("seed=%q", drained))
	}, time.Minute, "the drained seeds' panel never showed the drained seed")
	for _, s := range tenantShoots(ctx, t, c) {
		assert.NotNil(t, s.Spec.SeedName, "shoot %s lost its seed in the drain", s.Name)
	}

	// Demand falls to two seeds' worth: the set removes a replica, the drained one.
	for i := range 30 {
		require.NoError(t, client.IgnoreNotFound(c.Delete(ctx, builders.MakeShoot(tenants, fmt.Sprintf("tenant-%03d", i)).Obj())))
	}
	waitFor(func() bool {
		err := c.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: drained}, &seedmanagementv1alpha1.ManagedSeed{})
		return apierrors.IsNotFound(err)
	}, 4*time.Minute, "the set never removed the drained replica")
	assert.Equal(t, 50, len(tenantShoots(ctx, t, c))-unbound(ctx, t, c), "every remaining shoot is bound")
	assert.Empty(t, w.Violations())
}

// drainPanel is the scheduler dashboard's query of the drained seeds' shoots.
const drainPanel = "seedscaler / Scheduler / Drained seeds' shoots / target 0"

// quietestSeed names the set's seed with the fewest tenant shoots.
func quietestSeed(ctx context.Context, t *testing.T, c client.Client) string {
	t.Helper()
	count := map[string]int{}
	for _, s := range tenantShoots(ctx, t, c) {
		if s.Spec.SeedName != nil {
			count[*s.Spec.SeedName]++
		}
	}
	best, fewest := "", int(^uint(0)>>1)
	for seed, n := range count {
		if n < fewest || (n == fewest && seed < best) {
			best, fewest = seed, n
		}
	}
	require.NotEmpty(t, best, "no tenant shoot is bound")
	return best
}
