package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels of a SpiralBenchNodeResult, for `kubectl get sbnr -l ...`.
const (
	// LabelResultFleet names the fleet.
	LabelResultFleet = "spiralbench.io/fleet"
	// LabelResultRound is the round number.
	LabelResultRound = "spiralbench.io/fleet-round"
	// LabelResultNode is the node's name, or, for a name that is not a valid label value
	// (over 63 characters), "h-" and a hash of it (pkg/fleet NodeLabelValue).
	LabelResultNode = "spiralbench.io/node"
	// LabelResultVerdict is the row's verdict (Pending, Running, Passed, ...).
	LabelResultVerdict = "spiralbench.io/verdict"
	// LabelResultReason is the first reason code of the verdict, without its step.
	LabelResultReason = "spiralbench.io/reason"
)

// SpiralBenchNodeResult is one node's row of one fleet round: where the node stands in the
// round and, once decided, its verdict. The fleet writes one per node and round (the name is
// derived from the fleet, the round and the node, so a retried create finds the first) and
// owns it, so deleting the fleet deletes its results; the fleet keeps the last few rounds'
// (docs/fleet.md). Labels carry the fleet, round, node, verdict and first reason code:
// `kubectl get sbnr -l spiralbench.io/verdict=Failed`.
//
// The name is FLEET-ROUND-NODE-TAG (pkg/fleet ResultName). Admission checks the readable
// part (fleet and round only where the manager may cut it, past 200 characters); the tag is
// an HMAC under the manager's provenance key, which CEL cannot compute (nor may anyone but
// the manager), so the manager checks it when it reads the row.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=sbnr,categories=spiral
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.result.name`
// +kubebuilder:printcolumn:name="Fleet",type=string,JSONPath=`.fleet`
// +kubebuilder:printcolumn:name="Round",type=integer,JSONPath=`.round`
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.result.verdict`
// +kubebuilder:printcolumn:name="Step",type=string,JSONPath=`.result.step`
// +kubebuilder:printcolumn:name="Steps",type=string,JSONPath=`.result.stepsSummary`
// +kubebuilder:printcolumn:name="Reasons",type=string,JSONPath=`.result.reasons`
// +kubebuilder:printcolumn:name="Value",type=integer,JSONPath=`.result.value`,priority=1
// +kubebuilder:printcolumn:name="Bench",type=string,JSONPath=`.result.bench`,priority=1
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.result.reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.round >= 1",message="round counts from 1"
type SpiralBenchNodeResult struct {
	metav1.TypeMeta `json:",inline"`
	// SpiralBenchNodeResultRules carries the rules too long for a marker line (fleet_result_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SpiralBenchNodeResultRules `json:",inline"`

	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// fleet is the SpiralBenchFleet (same namespace) the row belongs to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Fleet string `json:"fleet"`

	// round of the fleet the row is of.
	// +required
	Round int32 `json:"round"`

	// result is the node's row: verdict, reasons, step, bench, headline value, deltas, and a
	// record of each step (steps, stepsSummary).
	// +required
	Result FleetNode `json:"result"`
}

// SpiralBenchNodeResultList is a list of SpiralBenchNodeResult objects.
//
// +kubebuilder:object:root=true
type SpiralBenchNodeResultList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SpiralBenchNodeResult `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SpiralBenchNodeResult{}, &SpiralBenchNodeResultList{})
}
