package v1alpha1

// MaxSuiteSteps bounds a node's step records: the longest built-in suite (6 steps) and a
// suite's own steps (SuiteSpec.Steps, at most 12) when none of them replaces a built-in one.
// FleetNode.Steps's MaxItems marker says the same number (markers cannot name a constant).
const MaxSuiteSteps = 18

// StepRecordState is how one step of a node's suite ended, as its record shows it.
// +kubebuilder:validation:Enum=Passed;Failed;Invalid;DeadlineExceeded;Skipped;Excused;NoGPU;Missing
type StepRecordState string

const (
	// StepRecordPassed: the step's bench passed and its figures held what they were judged against.
	StepRecordPassed StepRecordState = "Passed"
	// StepRecordFailed: the bench failed, or a figure missed its class reference or its history.
	StepRecordFailed StepRecordState = "Failed"
	// StepRecordInvalid: the step measured, but the measurement cannot be trusted or judged.
	StepRecordInvalid StepRecordState = "Invalid"
	// StepRecordDeadlineExceeded: the step ran past its deadlineSeconds.
	StepRecordDeadlineExceeded StepRecordState = "DeadlineExceeded"
	// StepRecordSkipped: an earlier step with onFailure Stop did not pass.
	StepRecordSkipped StepRecordState = "Skipped"
	// StepRecordExcused: a GPU step on a node without GPUs whose class lists the step as not
	// applicable; it does not count against the node.
	StepRecordExcused StepRecordState = "Excused"
	// StepRecordNoGPU: a GPU step on a node without GPUs that no class excuses (NoGPU).
	StepRecordNoGPU StepRecordState = "NoGPU"
	// StepRecordMissing: the step has no result.
	StepRecordMissing StepRecordState = "Missing"
)

// FleetStepRecord is one step of a node's suite in a round: how it ended and why, its headline
// figure, what that figure was judged against, and the bench it came from. It is derived from
// the same judgement as the node's verdict (pkg/fleet Judge).
type FleetStepRecord struct {
	// name of the step; empty for the one step of a fleet with spec.template.
	// +kubebuilder:validation:MaxLength=20
	// +optional
	Name string `json:"name,omitempty"`
	// state is how the step ended.
	// +required
	State StepRecordState `json:"state"`
	// reason says why in a few words: what failed, what excused it.
	// +kubebuilder:validation:MaxLength=160
	// +optional
	Reason string `json:"reason,omitempty"`
	// figure names the step's headline figure: its class reference's, else the fleet's
	// headline metric, else the figure its transport is known by (docs/qualification.md).
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Figure string `json:"figure,omitempty"`
	// value of the figure, rounded to whole units of unit.
	// +optional
	Value *int64 `json:"value,omitempty"`
	// unit of value ("Mb/s", "MB/s", "ns", ...).
	// +kubebuilder:validation:MaxLength=16
	// +optional
	Unit string `json:"unit,omitempty"`
	// judgedAgainst says what the figure was held to: the class's reference
	// ("55300 MB/s ±10% (class 4xH200-NV18, source ...)"), "no reference: class cpu-only expects
	// nothing for this step", and the node's history baseline where one was compared.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	JudgedAgainst string `json:"judgedAgainst,omitempty"`
	// bench is the SpiralBench (or external check pod) the step's outcome came from.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Bench string `json:"bench,omitempty"`
}
