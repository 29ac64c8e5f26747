package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Consolidation drains seeds of a set that is above its needs but cannot shrink because its
// seeds host shoots: the cheapest seed to empty first, one at a time, within a budget of
// migrations.
// +kubebuilder:validation:MinProperties=1
type Consolidation struct {
	// windowSeconds is how long the set must have been above its needs (the autoscaler
	// wanting fewer seeds than the set can remove) before a seed is drained; 60 to 86400,
	// 1800 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=86400
	WindowSeconds int32 `json:"windowSeconds,omitempty"`
	// maxMigrationsPerHour bounds the shoots consolidation moves per hour on average: a drain
	// of n shoots holds the next drain back for n/maxMigrationsPerHour hours from its start,
	// so a seed larger than the budget is drained all the same, only less often; 1 to 10000,
	// 20 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	MaxMigrationsPerHour int32 `json:"maxMigrationsPerHour,omitempty"`
	// shootCooldownSeconds is how long a shoot that was moved is not moved again: a seed
	// holding such a shoot is not drained; 0 to 604800, 86400 (a day) when unset.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=604800
	ShootCooldownSeconds *int32 `json:"shootCooldownSeconds,omitempty"`
	// minScore is the least savings per disruption a drain must bring, as Karpenter's
	// balanced consolidation weighs them: one seed freed divided by the migration weights of
	// its shoots (1 each, 0.2 for a highly available control plane, or the shoot's
	// seedscaler.io/migration-weight). Consolidation drains the seed of the highest score,
	// and none below minScore; "0.02" (one seed for up to 50 ordinary migrations) when unset.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="spec.behavior.scaleDown.consolidation.minScore must be a quantity such as 0.02, 50m or 2e-2, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	// +kubebuilder:validation:XValidation:rule="(type(self) == string && self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')) || !quantity(string(self)).isLessThan(quantity('0'))",message="spec.behavior.scaleDown.consolidation.minScore must not be negative, e.g. minScore: \"0.02\" (one seed freed for up to 50 ordinary migrations)"
	MinScore *resource.Quantity `json:"minScore,omitempty"`
	// budgets bound the disruptions of the set at once, as a Karpenter NodePool's disruption
	// budgets: seeds drained or being removed, or shoots whose control planes migrate, for
	// the reasons each budget names, always or within a cron schedule. The most restrictive
	// active budget of a reason wins. They hold consolidation, the scale-in of empty seeds
	// and the scheduler's drain of seeds an operator annotated seedscaler.io/drain=true
	// (reason OperatorDrain); budgets: [{reasons: [Consolidation], seeds: "0"}] keeps the
	// budgets of the other reasons without consolidating.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Budgets []DisruptionBudget `json:"budgets,omitempty"`
}

// DisruptionReason is a kind of disruption a budget holds back.
// +kubebuilder:validation:Enum=Consolidation;OperatorDrain;EmptySeedRemoval
type DisruptionReason string

// The reasons of disruption budgets.
const (
	// DisruptionConsolidation is consolidation draining a seed of the set: the autoscaler
	// starts a drain only within the seeds budget, the scheduler migrates its shoots within
	// the shoots budget.
	DisruptionConsolidation DisruptionReason = "Consolidation"
	// DisruptionOperatorDrain is the scheduler draining a seed of the set that an operator
	// annotated seedscaler.io/drain=true: it moves shoots off a drained seed only within the
	// seeds budget and migrates them within the shoots budget.
	DisruptionOperatorDrain DisruptionReason = "OperatorDrain"
	// DisruptionEmptySeedRemoval is a scale-in removing empty seeds: the autoscaler asks for
	// no more removals than the seeds budget allows.
	DisruptionEmptySeedRemoval DisruptionReason = "EmptySeedRemoval"
)

// DisruptionReasons are the reasons in the order status lists them.
var DisruptionReasons = []DisruptionReason{DisruptionConsolidation, DisruptionOperatorDrain, DisruptionEmptySeedRemoval}

// DisruptionBudget bounds the disruptions of a set at once for the reasons it names, always
// or within a schedule. It gives exactly one of seeds and shoots.
// +kubebuilder:validation:XValidation:rule="has(self.seeds) != has(self.shoots)",message="a disruption budget gives exactly one of seeds and shoots, e.g. seeds: \"1\" or shoots: \"10%\"; to bound both, list two budgets"
// +kubebuilder:validation:XValidation:rule="has(self.schedule) == has(self.durationSeconds)",message="a disruption budget takes schedule and durationSeconds together, e.g. schedule: \"0 9 * * mon-fri\" with durationSeconds: 28800 (8 hours); without either it always applies"
type DisruptionBudget struct {
	// reasons the budget holds back: Consolidation, OperatorDrain, EmptySeedRemoval.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	Reasons []DisruptionReason `json:"reasons,omitempty"`
	// seeds is the most seeds of the set disrupted at once: drained (annotated
	// seedscaler.io/drain=true, by anyone), being deleted, or asked to be removed. A count
	// ("1") or a percentage of the set's seeds ("10%", rounded up, so that a percentage
	// above 0 never blocks a set of few seeds); "0" allows none.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10
	// +kubebuilder:validation:Pattern=`^((100|[0-9]{1,2})%|[0-9]+)$`
	Seeds string `json:"seeds,omitempty"`
	// shoots is the most shoots of the set whose control planes migrate at once (out of
	// any of its seeds). A count ("4") or a percentage of the shoots on the set's seeds
	// ("5%", rounded up); "0" pauses migrations.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10
	// +kubebuilder:validation:Pattern=`^((100|[0-9]{1,2})%|[0-9]+)$`
	Shoots string `json:"shoots,omitempty"`
	// schedule is when the budget starts to apply, a cron schedule of five fields in UTC
	// (minute hour day-of-month month day-of-week, e.g. "0 9 * * mon-fri") or @daily,
	// @hourly, @weekly, @monthly, @yearly; it then applies for durationSeconds. Without it
	// the budget always applies.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/-]+( +[0-9A-Za-z*,/-]+){4})$`
	Schedule string `json:"schedule,omitempty"`
	// durationSeconds is how long the budget applies from each start of its schedule, 60
	// (a minute, cron's step) to 31622400 (a year), e.g. 28800 for 8 hours.
	// +optional
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=31622400
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
}

// ConsolidationStatus is the state of consolidation.
type ConsolidationStatus struct {
	// aboveNeedsSince is when the set was first seen, without a break, above its needs with
	// too few removable seeds; unset while it is not.
	// +optional
	AboveNeedsSince *metav1.Time `json:"aboveNeedsSince,omitempty"`
	// drains are the seeds consolidation drained that the migration budget has not paid
	// for yet, and those it gave up within the last hour, newest last.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Drains []ConsolidationDrain `json:"drains,omitempty"`
	// budgets are what spec.behavior.scaleDown.consolidation.budgets allowed at the last
	// evaluation, one entry per reason; unset without budgets.
	// +optional
	// +listType=map
	// +listMapKey=reason
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	Budgets []DisruptionBudgetStatus `json:"budgets,omitempty"`
	// scores are consolidation's recent scorings of the set's seeds, newest last; after a
	// rejected one the seeds are scored again once the window has passed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Scores []ConsolidationScore `json:"scores,omitempty"`
}

// ConsolidationDecision is what consolidation made of its scoring.
// +kubebuilder:validation:Enum=Approved;Rejected
type ConsolidationDecision string

// The decisions of a scoring.
const (
	// ConsolidationApproved: the seed's score reached minScore and consolidation drains it.
	ConsolidationApproved ConsolidationDecision = "Approved"
	// ConsolidationRejected: no seed's score reached minScore, or no seed's shoots may all
	// move; nothing is drained.
	ConsolidationRejected ConsolidationDecision = "Rejected"
)

// ConsolidationScore is one scoring of the seeds consolidation may drain.
type ConsolidationScore struct {
	// time of the scoring.
	// +required
	Time *metav1.Time `json:"time,omitempty"`
	// decision is Approved when the score reached minScore and consolidation drained the
	// seed, Rejected otherwise.
	// +required
	Decision ConsolidationDecision `json:"decision,omitempty"`
	// seed is the seed of the highest score; unset when no seed's shoots may all move.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Seed string `json:"seed,omitempty"`
	// score is the seed's savings per disruption: one seed freed divided by weight, e.g.
	// "0.05"; "+Inf" for shoots that weigh nothing.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Score string `json:"score,omitempty"`
	// weight is the sum of the migration weights of the seed's shoots, e.g. "20.4".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Weight string `json:"weight,omitempty"`
	// message says why, in a sentence.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// DisruptionBudgetStatus is what the disruption budgets allow for one reason.
type DisruptionBudgetStatus struct {
	// reason the entry is for.
	// +required
	Reason DisruptionReason `json:"reason,omitempty"`
	// seeds is how many more seeds of the set may be disrupted for the reason now: the most
	// restrictive active seeds budget less the seeds drained or being deleted; unset while
	// no active budget bounds seeds.
	// +optional
	Seeds *int32 `json:"seeds,omitempty"`
	// shoots is the most shoots of the set whose control planes may migrate at once for the
	// reason; unset while no active budget bounds shoots.
	// +optional
	Shoots *int32 `json:"shoots,omitempty"`
	// heldBy is the index in spec.behavior.scaleDown.consolidation.budgets of the budget
	// that allows no disruption of the reason now; unset while the budgets allow some.
	// +optional
	HeldBy *int32 `json:"heldBy,omitempty"`
	// message says which budgets apply and what they hold back.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// ConsolidationDrain is one seed consolidation drained.
type ConsolidationDrain struct {
	// seed is the drained seed (its ManagedSeed's name).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Seed string `json:"seed,omitempty"`
	// shoots the seed held when its drain started: the migrations it costs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Shoots *int32 `json:"shoots,omitempty"`
	// startTime is when the drain started.
	// +required
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// canceled says why consolidation gave the drain up (the scheduler found no place for
	// a shoot, or demand came back); empty while it runs or after it completed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Canceled string `json:"canceled,omitempty"`
}
