package v1alpha1

// FactChange is what a fleet does when a facts check between rounds finds a node's hardware
// wrong or worse than at its last round.
// +kubebuilder:validation:Enum=FailNode;BringRoundForward
type FactChange string

const (
	// FactChangeFailNode fails the node at once with the fact's reason code.
	FactChangeFailNode FactChange = "FailNode"
	// FactChangeBringRoundForward starts the next round now instead of at its scheduled time.
	FactChangeBringRoundForward FactChange = "BringRoundForward"
)

// FactChecksSpec reads each node's hardware facts between rounds (PCIe links, NVLinks, GPUs,
// NIC speeds) with a short pod that benchmarks nothing, and acts when one changed.
// docs/qualification.md "Fact checks between rounds".
type FactChecksSpec struct {
	// intervalSeconds between two fact checks of a node; at most one facts pod per node runs
	// at a time. Rounds take precedence: no check runs while a round does.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +required
	IntervalSeconds int32 `json:"intervalSeconds"`
	// onChange is FailNode (default): the node's verdict turns Failed with the fact's reason
	// code; or BringRoundForward: the next round starts now.
	// +kubebuilder:default=FailNode
	// +optional
	OnChange FactChange `json:"onChange,omitempty"`
}
