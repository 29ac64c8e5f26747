// Package builders makes test objects in one line, kueue-style:
// MakeShoot("p", "a").Provider("gcp").Region("europe-west1").Obj().
// Each method sets one field and returns the builder; Obj returns the object.
package builders

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// SeedBuilder builds a Seed.
type SeedBuilder struct{ seed *gardencorev1beta1.Seed }

// MakeSeed starts a visible gcp seed in europe-west1 with non-overlapping default networks.
// It is not usable by the scheduler until Ready() gives it a lastOperation and condition.
func MakeSeed(name string) *SeedBuilder {
	return &SeedBuilder{seed: &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: gardencorev1beta1.SeedSpec{
			Provider: gardencorev1beta1.SeedProvider{Type: "gcp", Region: "europe-west1"},
			Networks: gardencorev1beta1.SeedNetworks{
				Nodes: ptr.To("10.250.0.0/16"), Pods: "100.96.0.0/11", Services: "100.64.0.0/13",
			},
			Settings: &gardencorev1beta1.SeedSettings{Scheduling: &gardencorev1beta1.SeedSettingScheduling{Visible: true}},
		},
	}}
}

// Provider sets the provider type and region.
func (b *SeedBuilder) Provider(typ, region string) *SeedBuilder {
	b.seed.Spec.Provider.Type, b.seed.Spec.Provider.Region = typ, region
	return b
}

// Zones sets the zones.
func (b *SeedBuilder) Zones(zones ...string) *SeedBuilder {
	b.seed.Spec.Provider.Zones = zones
	return b
}

// Labels adds labels.
func (b *SeedBuilder) Labels(kv ...string) *SeedBuilder {
	if b.seed.Labels == nil {
		b.seed.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.seed.Labels[kv[i]] = kv[i+1]
	}
	return b
}

// Annotations adds annotations.
func (b *SeedBuilder) Annotations(kv ...string) *SeedBuilder {
	if b.seed.Annotations == nil {
		b.seed.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.seed.Annotations[kv[i]] = kv[i+1]
	}
	return b
}

// Taint adds a taint; an empty value means a taint without value.
func (b *SeedBuilder) Taint(key, value string) *SeedBuilder {
	t := gardencorev1beta1.SeedTaint{Key: key}
	if value != "" {
		t.Value = ptr.To(value)
	}
	b.seed.Spec.Taints = append(b.seed.Spec.Taints, t)
	return b
}

// Invisible hides the seed from the scheduler.
func (b *SeedBuilder) Invisible() *SeedBuilder {
	b.seed.Spec.Settings.Scheduling.Visible = false
	return b
}

// Networks sets the seed's node, pod and service networks.
func (b *SeedBuilder) Networks(nodes, pods, services string) *SeedBuilder {
	b.seed.Spec.Networks.Nodes = ptr.To(nodes)
	b.seed.Spec.Networks.Pods, b.seed.Spec.Networks.Services = pods, services
	return b
}

// ShootDefaults sets the networks shoots get when they name none.
func (b *SeedBuilder) ShootDefaults(pods, services string) *SeedBuilder {
	b.seed.Spec.Networks.ShootDefaults = &gardencorev1beta1.ShootNetworks{Pods: ptr.To(pods), Services: ptr.To(services)}
	return b
}

// Backup gives the seed a backup configuration.
func (b *SeedBuilder) Backup(provider string) *SeedBuilder {
	b.seed.Spec.Backup = &gardencorev1beta1.SeedBackup{Provider: provider}
	return b
}

// AccessRestrictions adds access restrictions the seed supports.
func (b *SeedBuilder) AccessRestrictions(names ...string) *SeedBuilder {
	for _, n := range names {
		b.seed.Spec.AccessRestrictions = append(b.seed.Spec.AccessRestrictions, gardencorev1beta1.AccessRestriction{Name: n})
	}
	return b
}

// InternalDomain sets the domain of spec.dns.internal.
func (b *SeedBuilder) InternalDomain(domain string) *SeedBuilder {
	b.dns().Internal = &gardencorev1beta1.SeedDNSProviderConfig{Type: "local", Domain: domain}
	return b
}

// DefaultDomains adds default domains (spec.dns.defaults).
func (b *SeedBuilder) DefaultDomains(domains ...string) *SeedBuilder {
	dns := b.dns()
	for _, d := range domains {
		dns.Defaults = append(dns.Defaults, gardencorev1beta1.SeedDNSProviderConfig{Type: "local", Domain: d})
	}
	return b
}

func (b *SeedBuilder) dns() *gardencorev1beta1.SeedDNS {
	if b.seed.Spec.DNS == nil {
		b.seed.Spec.DNS = &gardencorev1beta1.SeedDNS{}
	}
	return b.seed.Spec.DNS
}

// ZoneSelection sets spec.settings.zoneSelection.mode.
func (b *SeedBuilder) ZoneSelection(mode gardencorev1beta1.ZoneSelectionMode) *SeedBuilder {
	b.seed.Spec.Settings.ZoneSelection = &gardencorev1beta1.SeedSettingZoneSelection{Mode: mode}
	return b
}

// Allocatable sets status.capacity and status.allocatable of the shoots resource.
func (b *SeedBuilder) Allocatable(shoots int64) *SeedBuilder {
	q := *resource.NewQuantity(shoots, resource.DecimalSI)
	b.seed.Status.Capacity = corev1.ResourceList{gardencorev1beta1.ResourceShoots: q}
	b.seed.Status.Allocatable = corev1.ResourceList{gardencorev1beta1.ResourceShoots: q}
	return b
}

// Condition sets a status condition.
func (b *SeedBuilder) Condition(typ string, status metav1.ConditionStatus) *SeedBuilder {
	meta.SetStatusCondition(&b.seed.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: "Test"})
	return b
}

// Ready makes the seed usable: a succeeded lastOperation and GardenletReady (and
// BackupBucketsReady when it has a backup) True.
func (b *SeedBuilder) Ready() *SeedBuilder {
	b.seed.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100,
	}
	b.Condition(gardencorev1beta1.SeedGardenletReady, metav1.ConditionTrue)
	if b.seed.Spec.Backup != nil {
		b.Condition(gardencorev1beta1.SeedBackupBucketsReady, metav1.ConditionTrue)
	}
	return b
}

// Obj returns the seed.
func (b *SeedBuilder) Obj() *gardencorev1beta1.Seed { return b.seed }

// ShootBuilder builds a Shoot.
type ShootBuilder struct{ shoot *gardencorev1beta1.Shoot }

// MakeShoot starts an unscheduled gcp shoot in europe-west1 with a node network that does
// not overlap MakeSeed's networks.
func MakeShoot(namespace, name string) *ShootBuilder {
	return &ShootBuilder{shoot: &gardencorev1beta1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gardencorev1beta1.ShootSpec{
			CloudProfileName: ptr.To("gcp"),
			Provider:         gardencorev1beta1.Provider{Type: "gcp"},
			Region:           "europe-west1",
			Networking:       &gardencorev1beta1.Networking{Nodes: ptr.To("10.180.0.0/16")},
		},
	}}
}

// Provider sets the provider type and region.
func (b *ShootBuilder) Provider(typ, region string) *ShootBuilder {
	b.shoot.Spec.Provider.Type, b.shoot.Spec.Region = typ, region
	return b
}

// CloudProfile sets the cloud profile name.
func (b *ShootBuilder) CloudProfile(name string) *ShootBuilder {
	b.shoot.Spec.CloudProfileName = ptr.To(name)
	return b
}

// CloudProfileRef refers to a cloud profile in spec.cloudProfile and drops the deprecated
// spec.cloudProfileName.
func (b *ShootBuilder) CloudProfileRef(kind gardencorev1beta1.CloudProfileReferenceKind, name string) *ShootBuilder {
	b.shoot.Spec.CloudProfile = &gardencorev1beta1.CloudProfileReference{Kind: kind, Name: name}
	b.shoot.Spec.CloudProfileName = nil
	return b
}

// AccessRestrictions adds access restrictions the shoot asks for.
func (b *ShootBuilder) AccessRestrictions(names ...string) *ShootBuilder {
	for _, n := range names {
		b.shoot.Spec.AccessRestrictions = append(b.shoot.Spec.AccessRestrictions,
			gardencorev1beta1.AccessRestrictionWithOptions{AccessRestriction: gardencorev1beta1.AccessRestriction{Name: n}})
	}
	return b
}

// Domain sets spec.dns.domain.
func (b *ShootBuilder) Domain(domain string) *ShootBuilder {
	b.shoot.Spec.DNS = &gardencorev1beta1.DNS{Domain: ptr.To(domain)}
	return b
}

// ControlPlaneZones pins the control plane to zones (spec.controlPlane.zones).
func (b *ShootBuilder) ControlPlaneZones(zones ...string) *ShootBuilder {
	if b.shoot.Spec.ControlPlane == nil {
		b.shoot.Spec.ControlPlane = &gardencorev1beta1.ControlPlane{}
	}
	b.shoot.Spec.ControlPlane.Zones = zones
	return b
}

// Worker adds a worker pool of one to three nodes in the given zones.
func (b *ShootBuilder) Worker(name string, zones ...string) *ShootBuilder {
	b.shoot.Spec.Provider.Workers = append(b.shoot.Spec.Provider.Workers, gardencorev1beta1.Worker{
		Name: name, Machine: gardencorev1beta1.Machine{Type: "n1-standard-4"}, Minimum: 1, Maximum: 3, Zones: zones,
	})
	return b
}

// IPFamilies sets spec.networking.ipFamilies.
func (b *ShootBuilder) IPFamilies(families ...gardencorev1beta1.IPFamily) *ShootBuilder {
	if b.shoot.Spec.Networking == nil {
		b.shoot.Spec.Networking = &gardencorev1beta1.Networking{}
	}
	b.shoot.Spec.Networking.IPFamilies = families
	return b
}

// StatusNetworks sets status.networking: one network each, empty strings left out.
func (b *ShootBuilder) StatusNetworks(nodes, pods, services string) *ShootBuilder {
	n := &gardencorev1beta1.NetworkingStatus{}
	for _, f := range []struct {
		cidr string
		into *[]string
	}{{nodes, &n.Nodes}, {pods, &n.Pods}, {services, &n.Services}} {
		if f.cidr != "" {
			*f.into = []string{f.cidr}
		}
	}
	b.shoot.Status.Networking = n
	return b
}

// SeedName binds the shoot (spec.seedName).
func (b *ShootBuilder) SeedName(seed string) *ShootBuilder {
	b.shoot.Spec.SeedName = ptr.To(seed)
	return b
}

// StatusSeedName sets status.seedName (where the control plane runs now).
func (b *ShootBuilder) StatusSeedName(seed string) *ShootBuilder {
	b.shoot.Status.SeedName = ptr.To(seed)
	return b
}

// Purpose sets the purpose.
func (b *ShootBuilder) Purpose(p gardencorev1beta1.ShootPurpose) *ShootBuilder {
	b.shoot.Spec.Purpose = ptr.To(p)
	return b
}

// SchedulerName sets the scheduler name.
func (b *ShootBuilder) SchedulerName(name string) *ShootBuilder {
	b.shoot.Spec.SchedulerName = ptr.To(name)
	return b
}

// Toleration adds a toleration; an empty value leaves it without value, which tolerates
// only taints of the key without value.
func (b *ShootBuilder) Toleration(key, value string) *ShootBuilder {
	t := gardencorev1beta1.Toleration{Key: key}
	if value != "" {
		t.Value = ptr.To(value)
	}
	b.shoot.Spec.Tolerations = append(b.shoot.Spec.Tolerations, t)
	return b
}

// SeedSelector sets the shoot's seed selector from labels and provider types.
func (b *ShootBuilder) SeedSelector(matchLabels map[string]string, providerTypes ...string) *ShootBuilder {
	b.shoot.Spec.SeedSelector = &gardencorev1beta1.SeedSelector{
		LabelSelector: metav1.LabelSelector{MatchLabels: matchLabels},
		ProviderTypes: providerTypes,
	}
	return b
}

// Networks sets the shoot's node, pod and service networks; empty strings stay unset.
func (b *ShootBuilder) Networks(nodes, pods, services string) *ShootBuilder {
	n := &gardencorev1beta1.Networking{}
	if b.shoot.Spec.Networking != nil {
		n.IPFamilies = b.shoot.Spec.Networking.IPFamilies
	}
	if nodes != "" {
		n.Nodes = ptr.To(nodes)
	}
	if pods != "" {
		n.Pods = ptr.To(pods)
	}
	if services != "" {
		n.Services = ptr.To(services)
	}
	b.shoot.Spec.Networking = n
	return b
}

// ZoneFailureTolerance asks for a control plane that tolerates a zone failure.
func (b *ShootBuilder) ZoneFailureTolerance() *ShootBuilder {
	b.shoot.Spec.ControlPlane = &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{
		FailureTolerance: gardencorev1beta1.FailureTolerance{Type: gardencorev1beta1.FailureToleranceTypeZone},
	}}
	return b
}

// LastOperation sets status.lastOperation.
func (b *ShootBuilder) LastOperation(typ gardencorev1beta1.LastOperationType, state gardencorev1beta1.LastOperationState) *ShootBuilder {
	b.shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: typ, State: state}
	return b
}

// Labels adds labels.
func (b *ShootBuilder) Labels(kv ...string) *ShootBuilder {
	if b.shoot.Labels == nil {
		b.shoot.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.shoot.Labels[kv[i]] = kv[i+1]
	}
	return b
}

// Annotations adds annotations.
func (b *ShootBuilder) Annotations(kv ...string) *ShootBuilder {
	if b.shoot.Annotations == nil {
		b.shoot.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.shoot.Annotations[kv[i]] = kv[i+1]
	}
	return b
}

// Obj returns the shoot.
func (b *ShootBuilder) Obj() *gardencorev1beta1.Shoot { return b.shoot }
