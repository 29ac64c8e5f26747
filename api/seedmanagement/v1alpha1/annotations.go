package v1alpha1

// Annotations and labels of the seed management API (GEP-13, Cluster API's scale from zero).
const (
	// AnnotationProtectFromDeletion set to "true" on a ManagedSeed keeps a set's scale-in
	// from removing it, even when its seed is empty.
	AnnotationProtectFromDeletion = "seedmanagement.gardener.cloud/protect-from-deletion"
	// AnnotationPriority on a ManagedSeed orders scale-in: lower priorities go first.
	AnnotationPriority = "seedmanagement.gardener.cloud/priority"
	// DefaultPriority is the priority of a ManagedSeed without the priority annotation.
	DefaultPriority = 3
	// AnnotationScaleOutPriority on a ManagedSeedSet ranks it among the sets a pending
	// shoot would fit: the shoot asks a new seed of the set with the highest value (a whole
	// number; sets without it rank below every set with it), among equals of the one whose
	// new seed costs the least per shoot (AnnotationSeedHourPrice), then of the one whose
	// new seed wastes the least.
	AnnotationScaleOutPriority = "seedmanagement.gardener.cloud/scale-out-priority"
	// AnnotationSeedHourPrice on a ManagedSeedSet is what one of its seeds costs per hour, a
	// plain decimal number of 0 or more such as "1.85", in one currency across the sets.
	// Among sets of equal scale-out priority a pending shoot asks a new seed of the set with
	// the lowest price per shoot place (the price divided by the allocatable shoots of a new
	// seed); sets without a valid price rank after every set with one.
	AnnotationSeedHourPrice = "seedmanagement.gardener.cloud/seed-hour-price"
	// AnnotationCapacityPrefix prefixes the scale-from-zero capacity hints on a
	// ManagedSeedSet, e.g. capacity.seedmanagement.gardener.cloud/shoots: "250". A hint
	// wins over the capacity in the set's template.
	AnnotationCapacityPrefix = "capacity.seedmanagement.gardener.cloud/"

	// AnnotationOperation asks Gardener for an operation on a shoot; the set controller
	// sets it to OperationRetry to retry a failed replica shoot.
	AnnotationOperation = "gardener.cloud/operation"
	// OperationRetry is the value of AnnotationOperation that retries a failed operation.
	OperationRetry = "retry"

	// LabelControllerRevisionHash on a replica's ManagedSeed and Shoot names the
	// ControllerRevision of the set's templates it was created or last updated from.
	LabelControllerRevisionHash = "controller-revision-hash"
	// LabelManagedSeedSet on a replica names the ManagedSeedSet it belongs to.
	LabelManagedSeedSet = "seedmanagement.gardener.cloud/managedseedset"
	// LabelManagedSeedSetNamespace on a replica's Seed names the namespace of the
	// ManagedSeedSet in LabelManagedSeedSet: Seeds are cluster-scoped, sets are not, and
	// the exporter joins the two on it.
	LabelManagedSeedSetNamespace = "seedmanagement.gardener.cloud/managedseedset-namespace"
)
