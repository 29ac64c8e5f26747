package managedseedset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// TestCreatedAt: a replica that lost its Shoot or ManagedSeed gets it back at its own
// revision while that revision is known; a new one, or one whose revision was pruned, at the
// revision its ordinal is due (the update revision from the partition up).
func TestCreatedAt(t *testing.T) {
	revision := func(name string) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	templates := func(purpose gardencorev1beta1.ShootPurpose) revisionData {
		return revisionData{ShootTemplate: gardencorev1beta1.ShootTemplate{Spec: gardencorev1beta1.ShootSpec{Purpose: &purpose}}}
	}
	revs := &revisions{current: revision("set-old"), update: revision("set-new"),
		templates: map[string]revisionData{"set-old": templates("evaluation"), "set-new": templates("production")}}
	atRevision := func(name string) *replica {
		labels := map[string]string{seedmanagementv1alpha1.LabelControllerRevisionHash: name}
		return &replica{name: "set-0", shoot: &gardencorev1beta1.Shoot{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}
	}
	cases := []struct {
		name      string
		replica   *replica
		partition int32
		want      string
	}{
		{"own revision kept", atRevision("set-old"), 0, "set-old"},
		{"new replica at the update revision", newReplica("set", 2), 0, "set-new"},
		{"new replica below the partition", newReplica("set", 2), 3, "set-old"},
		{"pruned revision: the one its ordinal is due", atRevision("set-gone"), 0, "set-new"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			act := action{replica: tc.replica, revs: revs, world: world{partition: tc.partition}}
			name, data := act.createdAt()
			assert.Equal(t, tc.want, name)
			assert.Equal(t, revs.templates[tc.want], data)
		})
	}
}
