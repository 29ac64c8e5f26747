package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Seed condition types.
const (
	// SeedGardenletReady is True while the seed's gardenlet renews its heartbeat Lease.
	SeedGardenletReady = "GardenletReady"
	// SeedBackupBucketsReady is True while the seed's backup buckets are usable.
	SeedBackupBucketsReady = "BackupBucketsReady"
)

// AnnotationEmergencyStopShootReconciliations set to "true" on a Seed stops its gardenlet
// from reconciling shoots in an emergency; the scheduler then places no new shoot on it.
const AnnotationEmergencyStopShootReconciliations = "shoot.gardener.cloud/emergency-stop-reconciliations"

// ShootReconciliationsDisabled reports whether a seed's annotations stop its shoot
// reconciliations (AnnotationEmergencyStopShootReconciliations).
func ShootReconciliationsDisabled(seed *Seed) bool {
	return seed != nil && seed.Annotations[AnnotationEmergencyStopShootReconciliations] == "true"
}

// SeedLeaseNamespace holds one heartbeat Lease per seed, named like the seed, renewed by
// whoever runs the seed's gardenlet (Gardener's gardener-system-seed-lease).
const SeedLeaseNamespace = "gardener-system-seed-lease"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=seed
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="GardenletReady")].status`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider.type`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.provider.region`
// +kubebuilder:printcolumn:name="Shoots",type=string,JSONPath=`.status.usage.shoots`,description="Shoots scheduled onto the seed."
// +kubebuilder:printcolumn:name="Allocatable",type=string,JSONPath=`.status.allocatable.shoots`,description="Shoots the seed can take in all."
// +kubebuilder:printcolumn:name="Visible",type=boolean,JSONPath=`.spec.settings.scheduling.visible`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Seed is a cluster that hosts the control planes of shoots.
type Seed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the seed.
	// +required
	Spec SeedSpec `json:"spec"`
	// status is the observed state of the seed.
	// +optional
	Status SeedStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SeedList is a list of Seeds.
type SeedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Seed `json:"items"`
}

// SeedTemplate is a template for a Seed: the labels and annotations of its metadata and its spec.
type SeedTemplate struct {
	// metadata holds the labels and annotations of the Seed.
	// +optional
	ObjectMetaTemplate `json:"metadata,omitempty"`
	// spec is the spec of the Seed.
	// +required
	Spec SeedSpec `json:"spec"`
}

// ObjectMetaTemplate is the part of an object's metadata a template may set.
type ObjectMetaTemplate struct {
	// labels of the object created from the template.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Labels map[string]string `json:"labels,omitempty"`
	// annotations of the object created from the template.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Annotations map[string]string `json:"annotations,omitempty"`
}

// SeedSpec is the specification of a Seed.
type SeedSpec struct {
	// accessRestrictions the seed supports, such as eu-access-only: a shoot that asks for
	// access restrictions is hosted only by a seed that supports all of them.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	AccessRestrictions []AccessRestriction `json:"accessRestrictions,omitempty"`
	// backup holds the object store configuration for the etcd backups of the seed's shoots.
	// A control plane moves between two seeds only when both have one.
	// +optional
	Backup *SeedBackup `json:"backup,omitempty"`
	// dns holds the seed's internal and default domains.
	// +optional
	DNS *SeedDNS `json:"dns,omitempty"`
	// networks are the seed's own networks and the defaults for its shoots.
	// +required
	Networks SeedNetworks `json:"networks"`
	// provider describes the infrastructure the seed runs on.
	// +required
	Provider SeedProvider `json:"provider"`
	// settings of the seed.
	// +optional
	// +kubebuilder:default={}
	Settings *SeedSettings `json:"settings,omitempty"`
	// taints of the seed; only shoots that tolerate every taint are scheduled onto it.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=32
	Taints []SeedTaint `json:"taints,omitempty"`
}

// SeedBackup is the object store configuration of a seed.
type SeedBackup struct {
	// provider is the provider of the object store.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Provider string `json:"provider"`
	// region of the object store; the seed's region when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Region *string `json:"region,omitempty"`
	// secretRef refers to the credentials of the object store.
	// +optional
	SecretRef corev1.SecretReference `json:"secretRef,omitempty"`
}

// SeedDNS holds the domains of a seed.
type SeedDNS struct {
	// internal is the domain of the internal DNS records of the seed's shoots. A control
	// plane moves only between seeds with the same internal domain (or both without one).
	// +optional
	Internal *SeedDNSProviderConfig `json:"internal,omitempty"`
	// defaults are the default domains the seed serves shoots under: a shoot whose domain is
	// below one of them is hosted only by seeds that have it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Defaults []SeedDNSProviderConfig `json:"defaults,omitempty"`
}

// SeedDNSProviderConfig is a domain of a seed and the DNS provider that manages it.
type SeedDNSProviderConfig struct {
	// type of the DNS provider, for example aws-route53.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Type string `json:"type"`
	// domain the provider manages.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Domain string `json:"domain"`
	// zone in which the provider manages the records.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Zone *string `json:"zone,omitempty"`
	// credentialsRef refers to the credentials of the provider.
	// +optional
	CredentialsRef *corev1.ObjectReference `json:"credentialsRef,omitempty"`
}

// SeedNetworks are the networks of a seed. The networks of every shoot scheduled onto the
// seed must be disjoint from them where the VPN between seed and shoot cannot tell them
// apart: IPv6 networks, and the ranges the VPN reserves.
type SeedNetworks struct {
	// nodes is the CIDR of the seed's node network.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networks.nodes must be a CIDR such as 10.250.0.0/16"
	Nodes *string `json:"nodes,omitempty"`
	// pods is the CIDR of the seed's pod network.
	// +required
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networks.pods must be a CIDR such as 100.96.0.0/11"
	Pods string `json:"pods"`
	// services is the CIDR of the seed's service network.
	// +required
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networks.services must be a CIDR such as 100.64.0.0/13"
	Services string `json:"services"`
	// shootDefaults are the networks a shoot on this seed gets when it specifies none.
	// +optional
	ShootDefaults *ShootNetworks `json:"shootDefaults,omitempty"`
}

// ShootNetworks are the default networks of shoots on a seed.
type ShootNetworks struct {
	// pods is the default CIDR of a shoot's pod network.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="shootDefaults.pods must be a CIDR such as 100.96.0.0/11"
	Pods *string `json:"pods,omitempty"`
	// services is the default CIDR of a shoot's service network.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="shootDefaults.services must be a CIDR such as 100.64.0.0/13"
	Services *string `json:"services,omitempty"`
}

// SeedProvider describes the infrastructure of a seed.
type SeedProvider struct {
	// type is the provider type, for example aws, azure or gcp.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Type string `json:"type"`
	// region the seed runs in.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Region string `json:"region"`
	// zones of the region the seed spans. Shoots that tolerate a zone failure need at least three.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	Zones []string `json:"zones,omitempty"`
}

// SeedSettings are settings of a seed.
type SeedSettings struct {
	// scheduling controls whether the scheduler may place shoots onto the seed.
	// +optional
	// +kubebuilder:default={}
	Scheduling *SeedSettingScheduling `json:"scheduling,omitempty"`
	// zoneSelection places the control plane of a shoot that does not tolerate a zone
	// failure in a zone of the shoot's worker pools.
	// +optional
	ZoneSelection *SeedSettingZoneSelection `json:"zoneSelection,omitempty"`
}

// ZoneSelectionMode says how strictly a seed places control planes in their workers' zones.
// +kubebuilder:validation:Enum=Prefer;Enforce
type ZoneSelectionMode string

// The zone selection modes.
const (
	// ZoneSelectionModePrefer places the control plane in a zone of the shoot's workers
	// when the seed has one; the scheduler prefers such seeds over those without.
	ZoneSelectionModePrefer ZoneSelectionMode = "Prefer"
	// ZoneSelectionModeEnforce requires a zone of the shoot's workers: the scheduler does not
	// place a shoot with workers in other zones only onto the seed.
	ZoneSelectionModeEnforce ZoneSelectionMode = "Enforce"
)

// SeedSettingZoneSelection is how a seed picks the zone of a control plane.
type SeedSettingZoneSelection struct {
	// mode is Prefer or Enforce.
	// +required
	Mode ZoneSelectionMode `json:"mode"`
}

// SeedSettingScheduling controls scheduling onto a seed.
type SeedSettingScheduling struct {
	// visible says whether the scheduler considers the seed at all.
	// +optional
	// +kubebuilder:default=true
	Visible bool `json:"visible"`
}

// SeedTaint is a taint on a seed: shoots that do not tolerate it are not scheduled onto the seed.
type SeedTaint struct {
	// key of the taint, a qualified name such as seed.gardener.cloud/protected.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')",message="spec.taints[].key must be a qualified name: an optional DNS subdomain prefix and '/', then up to 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric (for example seed.gardener.cloud/protected)"
	Key string `json:"key"`
	// value of the taint: only a toleration of the key with this value tolerates it. A taint
	// without value is tolerated by any toleration of its key.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Value *string `json:"value,omitempty"`
}

// SeedStatus is the observed state of a Seed.
type SeedStatus struct {
	// conditions of the seed: GardenletReady and BackupBucketsReady.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// capacity is the total amount of each resource the seed has, for at most 32 resources.
	// Each quantity has at most 64 characters and a whole exponent of at most 3 digits, as
	// every quantity of these CRDs: every part decodes them, and a longer exponent would
	// stall it.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) != string || !self[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])'))",message="status.capacity values must be quantities such as 500, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// allocatable is the amount of each resource available to shoots: capacity minus
	// reserved. Bounded as capacity is.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) != string || !self[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])'))",message="status.allocatable values must be quantities such as 500, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	// usage is the amount of each resource shoots consume, as last counted by the seed
	// controller. Informational: the scheduler counts usage itself and never reads it.
	// Bounded as capacity is.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) != string || !self[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])'))",message="status.usage values must be quantities such as 12, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Usage corev1.ResourceList `json:"usage,omitempty"`
	// lastOperation is the last operation on the seed; a seed without one is not usable.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
