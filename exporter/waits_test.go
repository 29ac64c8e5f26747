package exporter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

func TestBindWait(t *testing.T) {
	created := syncTime.Add(-90 * time.Second)
	shoot := func(seed string) *shootInfo {
		return &shootInfo{key: "garden-p/a", seed: seed, created: created.Unix()}
	}
	for _, tc := range []struct {
		name         string
		old, updated *shootInfo
		now          time.Time
		want         time.Duration
		wantBound    bool
	}{
		{name: "the bind: from no seed to a seed", old: shoot(""), updated: shoot("seed-a"), now: syncTime, want: 90 * time.Second, wantBound: true},
		{name: "still without a seed", old: shoot(""), updated: shoot(""), now: syncTime},
		{name: "a resync of a bound shoot", old: shoot("seed-a"), updated: shoot("seed-a"), now: syncTime},
		{name: "a migration to another seed", old: shoot("seed-a"), updated: shoot("seed-b"), now: syncTime},
		{name: "no creation time", old: &shootInfo{}, updated: &shootInfo{seed: "seed-a"}, now: syncTime},
		{name: "the exporter's clock behind the kube-apiserver's", old: shoot(""), updated: shoot("seed-a"), now: created.Add(-2 * time.Second), want: 0, wantBound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, bound := bindWait(tc.old, tc.updated, tc.now)
			assert.Equal(t, tc.wantBound, bound)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Every bind the exporter sees is observed once, in the bucket of its wait and with the set
// of the chosen seed and the shoot's region; shoots created with a seed, migrations and
// resyncs are not.
func TestSchedulingWaitIsObservedOnceAtTheBind(t *testing.T) {
	f := newFixture(t)
	c := NewCollector(f.src, logr.Discard())
	// soil-0 is a replica of Gardener's set soil (its ManagedSeed's controller reference);
	// lone belongs to no set.
	set := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil", UID: "uid-soil"}}
	f.addSeed(builders.MakeSeed("soil-0").Ready().Obj(), nil)
	f.addManagedSeed(&seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil-0",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))}}})
	f.addSeed(builders.MakeSeed("lone").Provider("aws", "eu-west-1").Ready().Obj(), nil)

	created := syncTime.Add(-10 * time.Minute)
	shoot := func(name, seed string, provider ...string) *gardencorev1beta1.Shoot {
		b := builders.MakeShoot("garden-p", name)
		if len(provider) == 2 {
			b = b.Provider(provider[0], provider[1])
		}
		s := b.Obj()
		s.CreationTimestamp = metav1.NewTime(created)
		if seed != "" {
			s.Spec.SeedName = ptr.To(seed)
		}
		return s
	}
	// Bound 60 s after its creation: within the default objective, in the bucket le="60".
	f.addShoot(shoot("fast", ""))
	f.updateShoot(c, created.Add(60*time.Second), shoot("fast", ""), shoot("fast", "soil-0"))
	// 61 s: le="90".
	f.addShoot(shoot("slow", "", "aws", "eu-west-1"))
	f.updateShoot(c, created.Add(61*time.Second), shoot("slow", "", "aws", "eu-west-1"), shoot("slow", "lone", "aws", "eu-west-1"))
	// Resyncs of both, a shoot created with a seed and one migrated: nothing more.
	f.updateShoot(c, syncTime, shoot("fast", "soil-0"), shoot("fast", "soil-0"))
	f.updateShoot(c, syncTime, shoot("slow", "lone", "aws", "eu-west-1"), shoot("slow", "lone", "aws", "eu-west-1"))
	f.addShoot(shoot("placed", "lone"))
	migrating := shoot("placed", "soil-0")
	migrating.Status.SeedName = ptr.To("lone")
	f.updateShoot(c, syncTime, shoot("placed", "lone"), migrating)

	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP garden_shoot_scheduling_wait_seconds Seconds from a shoot's creation to the update that set its spec.seedName, for shoots the exporter saw without a seed.
# TYPE garden_shoot_scheduling_wait_seconds histogram
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="1"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="2"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="5"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="10"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="15"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="20"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="30"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="45"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="60"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="90"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="120"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="180"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="300"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="900"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="1800"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="3600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="",namespace="",region="eu-west-1",le="+Inf"} 1
garden_shoot_scheduling_wait_seconds_sum{managedseedset="",namespace="",region="eu-west-1"} 61
garden_shoot_scheduling_wait_seconds_count{managedseedset="",namespace="",region="eu-west-1"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="1"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="2"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="5"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="10"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="15"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="20"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="30"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="45"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="60"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="90"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="120"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="180"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="300"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="900"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="1800"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="3600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="soil",namespace="garden",region="europe-west1",le="+Inf"} 1
garden_shoot_scheduling_wait_seconds_sum{managedseedset="soil",namespace="garden",region="europe-west1"} 60
garden_shoot_scheduling_wait_seconds_count{managedseedset="soil",namespace="garden",region="europe-west1"} 1
`), "garden_shoot_scheduling_wait_seconds"))
}

// The SLI reads the bucket of the objective's threshold, so the chart accepts exactly the
// buckets as thresholds, and its default is one of them.
func TestTheChartsThresholdsAreTheBuckets(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	chart := filepath.Join(root, "charts", "seedscaler")

	data, err := os.ReadFile(filepath.Join(chart, "values.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Monitoring struct {
				Properties struct {
					SLO struct {
						Properties struct {
							ThresholdSeconds struct {
								Enum []float64 `json:"enum"`
							} `json:"thresholdSeconds"`
						} `json:"properties"`
					} `json:"shootSchedulingSLO"`
				} `json:"properties"`
			} `json:"monitoring"`
		} `json:"properties"`
	}
	require.NoError(t, yaml.Unmarshal(data, &schema))
	assert.Equal(t, schedulingWaitBuckets, schema.Properties.Monitoring.Properties.SLO.Properties.ThresholdSeconds.Enum,
		"values.schema.json: monitoring.shootSchedulingSLO.thresholdSeconds must accept exactly the buckets of garden_shoot_scheduling_wait_seconds")

	data, err = os.ReadFile(filepath.Join(chart, "values.yaml"))
	require.NoError(t, err)
	var values struct {
		Monitoring struct {
			SLO struct {
				ThresholdSeconds float64 `json:"thresholdSeconds"`
			} `json:"shootSchedulingSLO"`
		} `json:"monitoring"`
	}
	require.NoError(t, yaml.Unmarshal(data, &values))
	assert.Equal(t, 60.0, values.Monitoring.SLO.ThresholdSeconds, "the default objective: a seed within 60 s")
	assert.Contains(t, schedulingWaitBuckets, values.Monitoring.SLO.ThresholdSeconds)
}
