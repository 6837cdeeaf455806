package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelAttemptBench names the SpiralBench an attempt result belongs to, for
// `kubectl get sbar -l spiralbench.io/bench=NAME`. It is the label the bench's pods carry.
const LabelAttemptBench = "spiralbench.io/bench"

// SpiralBenchAttemptResult is one finished attempt of one cell of a SpiralBench: every repeat
// the attempt measured, as the data plane reported it, and why it ended early when it did.
// The bench's controller writes one when the attempt ends, before the bench's status counts
// it, and never changes it; the bench owns it, so deleting the bench deletes its attempts.
// The bench's status keeps each cell's aggregate only, so `kubectl describe sb` stays short;
// reports, the results bucket and fleets read the repeats from here. The name is derived from
// the bench, cell and attempt, so a retried write finds the first.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=sbar,categories=spiral
// +kubebuilder:printcolumn:name="Bench",type=string,JSONPath=`.bench`
// +kubebuilder:printcolumn:name="Cell",type=integer,JSONPath=`.cellIndex`
// +kubebuilder:printcolumn:name="Attempt",type=integer,JSONPath=`.attempt`
// +kubebuilder:printcolumn:name="Repeats",type=integer,JSONPath=`.measured`
// +kubebuilder:printcolumn:name="Stopped early",type=string,JSONPath=`.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.repeatResults) || size(self.repeatResults) == self.measured",message="measured must count repeatResults"
type SpiralBenchAttemptResult struct {
	metav1.TypeMeta `json:",inline"`
	// SpiralBenchAttemptResultRules carries the rules too long for a marker line (attempt_result_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SpiralBenchAttemptResultRules `json:",inline"`

	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// bench is the SpiralBench (same namespace) the attempt ran for.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Bench string `json:"bench"`

	// cellIndex is the cell of the bench's plan, from 0.
	// +kubebuilder:validation:Minimum=0
	// +required
	CellIndex int32 `json:"cellIndex"`

	// attempt number within the cell, from 0 (retries included); the pods' names carry it.
	// +kubebuilder:validation:Minimum=0
	// +required
	Attempt int32 `json:"attempt"`

	// measured counts repeatResults.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Measured int32 `json:"measured,omitempty"`

	// message says why the attempt ended before measuring every repeat it ran; empty when it
	// measured them all.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`

	// final marks an attempt whose failure no retry can help (a rank refused its input).
	// +optional
	Final bool `json:"final,omitempty"`

	// repeatResults are the repeats the attempt measured, in order.
	// +listType=atomic
	// +optional
	RepeatResults []RepeatResult `json:"repeatResults,omitempty"`
}

// SpiralBenchAttemptResultList is a list of SpiralBenchAttemptResult objects.
//
// +kubebuilder:object:root=true
type SpiralBenchAttemptResultList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SpiralBenchAttemptResult `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SpiralBenchAttemptResult{}, &SpiralBenchAttemptResultList{})
}
