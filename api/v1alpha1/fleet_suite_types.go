package v1alpha1

// SuiteName names a built-in suite (pkg/fleet/suites.go; docs/qualification.md lists each
// step with its expected duration).
// +kubebuilder:validation:Enum=Quick;Standard;Extended
type SuiteName string

const (
	// SuiteQuick is a few minutes per node: the copy ceiling, a short NCCL sweep over the
	// node's GPUs, one socket loopback cell.
	SuiteQuick SuiteName = "Quick"
	// SuiteStandard adds the GPU copy and peer matrices, the NCCL collectives and UDP.
	SuiteStandard SuiteName = "Standard"
	// SuiteExtended adds the seed tables' sweeps (DAQIRI's socket matrices, NCCL's full size range).
	SuiteExtended SuiteName = "Extended"
)

// StepPlacement says whether a step measures one node or a node pair.
// +kubebuilder:validation:Enum=Node;Pair
type StepPlacement string

const (
	// StepOnNode runs the step on each node alone (a Loopback bench, or a check pod).
	StepOnNode StepPlacement = "Node"
	// StepOnPair runs the step as a CrossNode bench between the node and its round partner
	// (spec.pairing Ring).
	StepOnPair StepPlacement = "Pair"
)

// StepFailurePolicy says what a failed step does to the rest of the node's suite.
// +kubebuilder:validation:Enum=Stop;Continue
type StepFailurePolicy string

const (
	// StepStop skips the node's remaining steps (reason StepSkipped): a node that cannot copy
	// to its GPUs need not be asked to run NCCL.
	StepStop StepFailurePolicy = "Stop"
	// StepContinue runs the remaining steps anyway; the node still fails.
	StepContinue StepFailurePolicy = "Continue"
)

// ExternalCheck is a container run once on the node as a suite step: a site's own check
// (DCGM diagnostics, a burn-in) judged in the same verdict. Exit code 0 passes the step,
// any other fails it. Its termination message (/dev/termination-log, at most 4 KiB) may hold
// {"verdict":"Passed|Failed|Invalid","reason":"<ReasonCode or words>","figures":{"name":number}},
// which takes precedence over the exit code and whose figures are judged against the node
// class's references like a bench's.
type ExternalCheck struct {
	// image of the check: [registry[:port]/]repository[:tag][@sha256:digest], the repository
	// path in lower case (the grammar of distribution/reference, sha256 digests only).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?([.][a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*(:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[a-zA-Z0-9_][-a-zA-Z0-9_.]{0,127})?(@sha256:[a-f0-9]{64})?$')",message="check.image is not an image reference: write [registry[:port]/]repository[:tag][@sha256:DIGEST] without spaces, the repository path in lower case and DIGEST 64 hex digits (for example registry.example.com/site/node-check:1.0)"
	// +required
	Image string `json:"image"`

	// command overrides the image's entrypoint.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=1024
	// +listType=atomic
	// +optional
	Command []string `json:"command,omitempty"`

	// args are passed to the command.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`

	// gpus the check's pod requests (nvidia.com/gpu); 0 requests none.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=64
	// +optional
	GPUs int32 `json:"gpus,omitempty"`
}

// SuiteStep is one step of a node's suite: a bench or an external check.
//
// +kubebuilder:validation:XValidation:rule="has(self.template) != has(self.check)",message="a suite step is either a bench (template) or an external check (check): set exactly one"
// +kubebuilder:validation:XValidation:rule="!has(self.check) || !has(self.placement) || self.placement == 'Node'",message="an external check runs on one node: set placement Node or remove it"
type SuiteStep struct {
	// SuiteStepRules carries the rules too long for a marker line (fleet_suite_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SuiteStepRules `json:",inline"`

	// name of the step, unique in the suite; it names the step's benches and reason codes.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// template is the step's bench (any transport), without placement.
	// +optional
	Template *FleetBenchTemplate `json:"template,omitempty"`

	// check is the step's external check.
	// +optional
	Check *ExternalCheck `json:"check,omitempty"`

	// placement Node (default) runs the step on each node alone; Pair runs it between the node
	// and its round partner (needs spec.pairing Ring).
	// +kubebuilder:default=Node
	// +optional
	Placement StepPlacement `json:"placement,omitempty"`

	// useAllGPUs sets the bench's topology.server.gpus to the node's allocatable
	// nvidia.com/gpu when it is created (the template may then leave gpus out); on a node
	// without GPUs the step does not run and says "no GPU on this node".
	// +optional
	UseAllGPUs *bool `json:"useAllGPUs,omitempty"`

	// deadlineSeconds bounds the step from its bench's (or check's) creation; past it the
	// bench is suspended and its running pods deleted (a check's pod is stopped by its
	// activeDeadlineSeconds) and the step ends StepDeadlineExceeded.
	// +kubebuilder:default=1800
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	// +optional
	DeadlineSeconds int32 `json:"deadlineSeconds,omitempty"`

	// onFailure Stop (default) skips the node's remaining steps when this one does not pass;
	// Continue runs them anyway.
	// +kubebuilder:default=Stop
	// +optional
	OnFailure StepFailurePolicy `json:"onFailure,omitempty"`
}

// SuiteSpec is the ordered list of steps every node of a round runs: a built-in suite with
// optional overrides, or steps of the fleet's own.
//
// +kubebuilder:validation:XValidation:rule="has(self.builtin) || (has(self.steps) && size(self.steps) > 0)",message="a suite needs builtin (Quick, Standard or Extended) or at least one step"
type SuiteSpec struct {
	// SuiteSpecRules carries the rules too long for a marker line (fleet_suite_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SuiteSpecRules `json:",inline"`

	// builtin starts from a built-in suite (docs/qualification.md); steps then replace the
	// built-in steps of the same name and append the others.
	// +optional
	Builtin SuiteName `json:"builtin,omitempty"`

	// steps run in order on each node (or pair).
	// +kubebuilder:validation:MaxItems=12
	// +listType=atomic
	// +optional
	Steps []SuiteStep `json:"steps,omitempty"`
}

// ReferenceSpec judges each node against the reference catalog's node classes.
type ReferenceSpec struct {
	// catalogConfigMap names a ConfigMap in the fleet's namespace whose key catalog.yaml
	// replaces the manager's built-in catalog for this fleet.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="references.catalogConfigMap is a ConfigMap name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit (a DNS-1123 subdomain)"
	// +optional
	CatalogConfigMap string `json:"catalogConfigMap,omitempty"`

	// class forces the node class (by name) instead of matching each node's reported facts.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Class string `json:"class,omitempty"`
}
