package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

func TestScaleTargetProblemNamesTheCauseAndTheFix(t *testing.T) {
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	sa.Namespace = "garden"
	sa.Spec.ScaleTargetRef = autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: "pools.example.com/v1", Kind: "SeedPool", Name: "eu"}
	gr := schema.GroupResource{Group: "pools.example.com", Resource: "seedpools"}
	notFound := fmt.Errorf("reading the scale of SeedPool garden/eu: %w", apierrors.NewNotFound(gr, "eu"))
	lookups := map[string]error{
		"not found":                          apierrors.NewNotFound(gr, "eu"),
		"no scale subresource":               nil,
		"not found and the object forbidden": apierrors.NewForbidden(gr, "eu", errors.New("RBAC: no rule")),
	}
	for _, tc := range []struct {
		name   string
		err    error
		reason controllerutils.Reason
		want   string
	}{
		{"no such kind", fmt.Errorf("mapping the target kind SeedPool: %w", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: gr.Group, Kind: "SeedPool"}, SearchedVersions: []string{"v1"}}),
			ReasonUnknownTargetKind, "the cluster serves no kind SeedPool in pools.example.com/v1: correct spec.scaleTargetRef.apiVersion and kind, or install the CRD"},
		{"forbidden", fmt.Errorf("reading the scale of SeedPool garden/eu: %w", apierrors.NewForbidden(schema.GroupResource{Group: gr.Group, Resource: "seedpools/scale"}, "eu", errors.New("RBAC: no rule"))),
			ReasonScaleForbidden, "the autoscaler may not read the scale of SeedPool garden/eu: grant its ServiceAccount get and update on the target's <resource>/scale"},
		// A kind without a scale subresource answers /scale with NotFound too: the object
		// tells the two apart.
		{"not found", notFound, ReasonTargetNotFound, "SeedPool garden/eu does not exist: create it or correct spec.scaleTargetRef.name"},
		{"no scale subresource", notFound, ReasonMissingScaleSubresource,
			"SeedPool garden/eu exists, but SeedPool pools.example.com/v1 has no scale subresource: target a ManagedSeedSet, or a kind whose CRD declares subresources.scale"},
		{"not found and the object forbidden", notFound, recommend.ReasonFailedGetScale,
			"SeedPool garden/eu has no scale: either it does not exist or SeedPool pools.example.com/v1 has no scale subresource"},
		{"unavailable", errors.New("the server is currently unable to handle the request"),
			recommend.ReasonFailedGetScale, "the server is currently unable to handle the request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reader := &objectReader{err: lookups[tc.name]}
			reason, message := scaleTargetProblem(t.Context(), reader, sa, tc.err)
			assert.Equal(t, tc.reason, reason)
			assert.Contains(t, message, tc.want)
			if _, looked := lookups[tc.name]; looked {
				assert.Equal(t, []string{"pools.example.com/v1, Kind=SeedPool garden/eu"}, reader.gets, "the target itself is looked up")
			} else {
				assert.Empty(t, reader.gets)
			}
		})
	}
}

// objectReader answers every Get with err and records what was asked.
type objectReader struct {
	err  error
	gets []string
}

func (r *objectReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.gets = append(r.gets, obj.GetObjectKind().GroupVersionKind().String()+" "+key.String())
	return r.err
}

func (r *objectReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("not used")
}
