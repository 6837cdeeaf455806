package v1alpha1

// Labels and annotations the operator writes: on the SpiralBenches a fleet owns, on the nodes a
// fleet judges, and on the Secrets a bench may sign with. Users select by them and both
// reconcilers read them, so they are part of the API.

// On the SpiralBenches (and check pods) a fleet owns. The nodes a bench measures are in its
// placement (nodeName), so the fleet reads them from the bench's spec, never from its pods.
const (
	LabelFleet      = "spiralbench.io/fleet"
	LabelFleetKind  = "spiralbench.io/fleet-kind"
	LabelFleetRound = "spiralbench.io/fleet-round"
	// LabelFleetStep names the suite step of a fleet's bench or check pod (absent for the one
	// step of spec.template).
	LabelFleetStep = "spiralbench.io/fleet-step"
	// AnnotationFleetDeadlineExceeded marks a bench the fleet suspended at its step's deadline;
	// the step's outcome is StepDeadlineExceeded, read back from the bench after a restart.
	AnnotationFleetDeadlineExceeded = "spiralbench.io/fleet-deadline-exceeded"
	// AnnotationFleetNoReference marks a failed Pair step's bench when no node passed to isolate
	// its nodes against: its nodes keep the pair's outcome, read back after a restart.
	AnnotationFleetNoReference = "spiralbench.io/fleet-no-reference"
)

// On the nodes a fleet judges, only when the manager runs with --fleet-node-writes (the chart
// then grants node patch rights; see config/rbac/fleet_node_writes_role.yaml).
const (
	LabelVerdict         = "spiralbench.io/verdict"
	LabelVerdictTime     = "spiralbench.io/verdict-time"
	AnnotationVerdictRun = "spiralbench.io/verdict-run"
	// LabelVerdictValidUntil says until when the verdict holds (verdicts.validSeconds).
	LabelVerdictValidUntil = "spiralbench.io/verdict-valid-until"
	// AnnotationVerdictReasons lists the verdict's reason codes, comma-separated.
	AnnotationVerdictReasons = "spiralbench.io/verdict-reasons"
	// LabelVerdictClass names the reference class the node was judged as.
	LabelVerdictClass = "spiralbench.io/verdict-class"
)

// LabelCredentials must be "true" on a Secret before a bench's spec.results may use it: the
// Secret's owner opts it in, so that creating a bench is not enough to have the operator sign
// requests with any Secret the operator may read in that namespace.
const LabelCredentials = "spiralbench.io/credentials"
