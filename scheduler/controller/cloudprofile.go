package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// CloudProfileOf reads the cloud profile a shoot uses as Gardener's scheduler does
// (gardenerutils.GetCloudProfile): the CloudProfile spec.cloudProfile (else the deprecated
// spec.cloudProfileName) names, or for a NamespacedCloudProfile in the shoot's namespace a
// CloudProfile of that name and namespace holding its merged status.cloudProfileSpec. While
// Gardener has not merged it yet (and where nothing ever does, without Gardener), the
// parent CloudProfile's spec stands in: a NamespacedCloudProfile changes neither the seed
// selector nor the regions of its parent. The name stays the NamespacedCloudProfile's, and
// with it the region config, which Gardener looks up by that name. Nil when the shoot
// names no profile.
func CloudProfileOf(ctx context.Context, reader client.Reader, shoot *gardencorev1beta1.Shoot) (*gardencorev1beta1.CloudProfile, error) {
	ref := gardencorev1beta1.CloudProfileReferenceOf(shoot)
	if ref == nil {
		return nil, nil
	}
	switch ref.Kind {
	case gardencorev1beta1.CloudProfileReferenceKindCloudProfile:
		return getCloudProfile(ctx, reader, ref.Name, "of the shoot")
	case gardencorev1beta1.CloudProfileReferenceKindNamespacedCloudProfile:
		ncp := &gardencorev1beta1.NamespacedCloudProfile{}
		if err := reader.Get(ctx, client.ObjectKey{Namespace: shoot.Namespace, Name: ref.Name}, ncp); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("NamespacedCloudProfile %s/%s of the shoot (spec.cloudProfile) does not exist", shoot.Namespace, ref.Name)
			}
			return nil, fmt.Errorf("getting NamespacedCloudProfile %s/%s: %w", shoot.Namespace, ref.Name, err)
		}
		cp := &gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Namespace: ncp.Namespace, Name: ncp.Name}}
		if merged := ncp.Status.CloudProfileSpec; merged != nil {
			cp.Spec = *merged
			return cp, nil
		}
		parent, err := getCloudProfile(ctx, reader, ncp.Spec.Parent.Name, fmt.Sprintf("that NamespacedCloudProfile %s/%s derives from (spec.parent)", ncp.Namespace, ncp.Name))
		if err != nil {
			return nil, err
		}
		cp.Spec = parent.Spec
		return cp, nil
	}
	return nil, fmt.Errorf("spec.cloudProfile.kind %q of the shoot is not a cloud profile kind: use CloudProfile or NamespacedCloudProfile", ref.Kind)
}

func getCloudProfile(ctx context.Context, reader client.Reader, name, whose string) (*gardencorev1beta1.CloudProfile, error) {
	cp := &gardencorev1beta1.CloudProfile{}
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, cp); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("CloudProfile %s %s does not exist", name, whose)
		}
		return nil, fmt.Errorf("getting CloudProfile %s: %w", name, err)
	}
	return cp, nil
}
