package autoscaler

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// Reasons of AbleToScale False when the scale target cannot be read. The apiserver checks
// only the shape of spec.scaleTargetRef (CEL cannot look other kinds up); these say which
// part of the reference the cluster does not back, and the message says how to fix it.
const (
	// ReasonUnknownTargetKind: the cluster serves no such kind in that apiVersion.
	ReasonUnknownTargetKind controllerutils.Reason = "UnknownTargetKind"
	// ReasonMissingScaleSubresource: the target exists but its kind has no scale subresource.
	ReasonMissingScaleSubresource controllerutils.Reason = "MissingScaleSubresource"
	// ReasonTargetNotFound: no object of that kind and name exists.
	ReasonTargetNotFound controllerutils.Reason = "TargetNotFound"
	// ReasonScaleForbidden: the autoscaler's RBAC does not let it read the target's scale.
	ReasonScaleForbidden controllerutils.Reason = "ScaleForbidden"
)

// scaleTargetProblem turns an error of reading the target's scale into the reason of
// AbleToScale False and a message that names the field or the rule to fix.
// recommend.ReasonFailedGetScale is what it cannot tell apart (a timeout, an unavailable
// API). A kind without a scale subresource answers /scale with the same NotFound as a
// missing object, so on NotFound the object itself is looked up.
func scaleTargetProblem(ctx context.Context, reader client.Reader, sa *autoscalingv1alpha1.SeedAutoscaler, err error) (controllerutils.Reason, string) {
	ref := sa.Spec.ScaleTargetRef
	target := fmt.Sprintf("%s %s/%s", ref.Kind, sa.Namespace, ref.Name)
	switch {
	case meta.IsNoMatchError(err):
		return ReasonUnknownTargetKind, fmt.Sprintf("the cluster serves no kind %s in %s: correct spec.scaleTargetRef.apiVersion and kind, or install the CRD (%v)",
			ref.Kind, ref.APIVersion, err)
	case apierrors.IsForbidden(err):
		return ReasonScaleForbidden, fmt.Sprintf("the autoscaler may not read the scale of %s: grant its ServiceAccount get and update on the target's <resource>/scale (%v)",
			target, err)
	case apierrors.IsNotFound(err):
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
		getErr := reader.Get(ctx, client.ObjectKey{Namespace: sa.Namespace, Name: ref.Name}, obj)
		switch {
		case getErr == nil:
			return ReasonMissingScaleSubresource, fmt.Sprintf("%s exists, but %s %s has no scale subresource: target a ManagedSeedSet, or a kind whose CRD declares subresources.scale (%v)",
				target, ref.Kind, ref.APIVersion, err)
		case apierrors.IsNotFound(getErr):
			return ReasonTargetNotFound, fmt.Sprintf("%s does not exist: create it or correct spec.scaleTargetRef.name (%v)", target, err)
		}
		return recommend.ReasonFailedGetScale, fmt.Sprintf("%s has no scale: either it does not exist or %s %s has no scale subresource (%v; looking the object up: %v)",
			target, ref.Kind, ref.APIVersion, err, getErr)
	}
	return recommend.ReasonFailedGetScale, err.Error()
}
