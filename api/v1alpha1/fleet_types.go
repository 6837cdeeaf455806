package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FleetPairing says how a fleet places its benches on the pool's nodes.
// +kubebuilder:validation:Enum=None;Ring
type FleetPairing string

const (
	// PairingNone benches each node alone: a Loopback bench across its two cabled ports.
	PairingNone FleetPairing = "None"
	// PairingRing pairs the pool's nodes for CrossNode benches: the nodes sorted by name sit on
	// a ring and round r pairs them by the circle method (round-robin tournament), so
	// successive rounds pair every node with a different partner.
	PairingRing FleetPairing = "Ring"
)

// FleetMetric is the headline cell's metric a fleet compares across nodes and with history.
// +kubebuilder:validation:Enum=RxMbps;TxMbps;PacketsPerSecond;LatencyP50Nanoseconds;LatencyP99Nanoseconds
type FleetMetric string

// DomainMode says whether Ring pairs stay inside a label domain or cross domains.
// +kubebuilder:validation:Enum=Within;Across
type DomainMode string

const (
	// DomainWithin pairs nodes of the same domain only (an NVLink clique, a rack).
	DomainWithin DomainMode = "Within"
	// DomainAcross pairs nodes of different domains (the links between racks).
	DomainAcross DomainMode = "Across"
)

// PairingDomainSpec pairs Ring nodes by a node label's value.
type PairingDomainSpec struct {
	// label whose value is a node's domain, for example topology.kubernetes.io/rack or
	// nvidia.com/gpu.clique; nodes without it form the domain "".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$') && self.indexOf('/') <= 253",message="pairingDomain.label is a node label key: an optional DNS subdomain prefix (lower-case, at most 253 characters) and '/', then a name of at most 63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit, for example topology.kubernetes.io/rack"
	// +required
	Label string `json:"label"`
	// mode Within (default) pairs nodes of one domain; Across pairs nodes of two domains.
	// +kubebuilder:default=Within
	// +optional
	Mode DomainMode `json:"mode,omitempty"`
}

// UpgradeDriver names a driver whose upgrades the fleet gates.
// +kubebuilder:validation:Enum=GPU;OFED
type UpgradeDriver string

const (
	// UpgradeDriverGPU follows the NVIDIA GPU Operator's nvidia.com/gpu-driver-upgrade-state label.
	UpgradeDriverGPU UpgradeDriver = "GPU"
	// UpgradeDriverOFED follows the NVIDIA Network Operator's nvidia.com/ofed-driver-upgrade-state label.
	UpgradeDriverOFED UpgradeDriver = "OFED"
)

// FleetBenchTemplate is the SpiralBench each node (or node pair) gets.
type FleetBenchTemplate struct {
	// labels are copied onto every SpiralBench the fleet creates. The spiralbench.io/ prefix is
	// the operator's: it labels the benches with their fleet, kind, round and step itself, and
	// finds them by those labels. Values are checked for length only: a pattern on each value
	// of a map whose values have no maxLength is priced beyond the apiserver's CEL budget (an
	// invalid value is refused when the bench is created).
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$') && k.indexOf('/') <= 253)",message="labels keys must be Kubernetes label keys: an optional DNS subdomain prefix (lower-case, at most 253 characters) and '/', then a name of at most 63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 63)",message="labels values must be Kubernetes label values: at most 63 characters (letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('spiralbench.io/'))",message="spiralbench.io/ labels are the operator's own (it sets spiralbench.io/fleet, fleet-kind, fleet-round and fleet-step on each bench and selects by them): remove the spiralbench.io/ keys from labels, or use a prefix of your own"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// spec of each bench. The fleet fills in placement (one node for Loopback, a server and a
	// client node for pairing Ring) and its tolerations; the rest is used as written.
	// +required
	Spec SpiralBenchSpec `json:"spec"`
}

// FleetVerdictSpec writes each node's verdict onto the node. The manager needs node patch
// rights for it (Helm value fleet.nodeWrites, manager flag --fleet-node-writes); without them
// the NodeWrites condition says so and nothing is written.
type FleetVerdictSpec struct {
	// labels sets spiralbench.io/verdict (Passed, Failed or Invalid) and
	// spiralbench.io/verdict-time on each benched node, and the annotation
	// spiralbench.io/verdict-run naming the bench and its run.
	// +optional
	Labels bool `json:"labels,omitempty"`

	// taintOnFailure adds the NoSchedule taint spiralbench.io/verdict=Failed to a node whose
	// verdict is Failed, and removes it when a later bench of the node passes.
	// +optional
	TaintOnFailure bool `json:"taintOnFailure,omitempty"`

	// validSeconds is how long a verdict holds: the label spiralbench.io/verdict-valid-until
	// says until when, and past it the row's verdict says Expired until the node is benched
	// again (cluster-health-scanner's window is 24 h).
	// +kubebuilder:default=86400
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	ValidSeconds int32 `json:"validSeconds,omitempty"`
}

// StragglerSpec flags nodes far below the fleet: a node whose headline value is worse than
// the round's median by more than k times the median absolute deviation (MAD).
type StragglerSpec struct {
	// metric compared across nodes.
	// +kubebuilder:default=RxMbps
	// +optional
	Metric FleetMetric `json:"metric,omitempty"`

	// kMilli is k in thousandths: 3000 flags nodes worse than median - 3 x MAD.
	// +kubebuilder:default=3000
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=100000
	// +optional
	KMilli int32 `json:"kMilli,omitempty"`

	// minNodes with a value before anything is flagged; a median of few nodes says little.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=100000
	// +optional
	MinNodes int32 `json:"minNodes,omitempty"`

	// failNode makes a straggler's verdict Failed; by default it is only flagged.
	// +optional
	FailNode bool `json:"failNode,omitempty"`
}

// HistoryBaselineSpec compares each node with its own earlier results, read from the bucket
// (history objects keyed by node and fleet), using only runs measured on the same environment
// (GPU driver, NIC firmware, kernel, image). A node regressed when its mean is worse than the
// history's mean by more than k standard deviations of the history's repeats (and the floor).
type HistoryBaselineSpec struct {
	// metric compared with history.
	// +kubebuilder:default=RxMbps
	// +optional
	Metric FleetMetric `json:"metric,omitempty"`

	// kMilli is k in thousandths: 3000 flags a mean below history mean - 3 x std.
	// +kubebuilder:default=3000
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=100000
	// +optional
	KMilli int32 `json:"kMilli,omitempty"`

	// minRegressionPercent ignores regressions smaller than this share of the history's mean,
	// so very stable history (std near 0) does not flag noise.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinRegressionPercent int32 `json:"minRegressionPercent,omitempty"`

	// environmentKeys are the status.environment fields a history run must share with this one
	// to count (docs/wire.md "Comparable environment"); empty: gpuDriver, nicDriver,
	// nicFirmware, kernel and image.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	EnvironmentKeys []EnvironmentKey `json:"environmentKeys,omitempty"`

	// runs is how many of the node's most recent comparable runs form the baseline.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +optional
	Runs int32 `json:"runs,omitempty"`

	// trendRounds flags a node Degrading (its verdict stands; reason code Degrading, an event)
	// when the trend of its comparable runs crosses the figure's floor within this many more
	// rounds: the Theil-Sen slope over its last trendRuns runs and this one, taken at the
	// bound of its 95 % interval nearest to no change, so one outlier or noise alone flags
	// nothing. The floor is the template's acceptance rule on the figure. 0 (the default)
	// looks at no trend.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	TrendRounds int32 `json:"trendRounds,omitempty"`

	// trendRuns is how many of the node's most recent comparable runs the trend reads,
	// besides the current one.
	// +kubebuilder:default=8
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=50
	// +optional
	TrendRuns int32 `json:"trendRuns,omitempty"`
}

// UpgradeGateSpec benches the nodes a driver upgrade touches and keeps them out of service
// until they pass: when a pool node's upgrade-state label leaves the idle states the fleet
// taints it spiralbench.io/upgrade-gate=Pending:NoSchedule; when the label reaches
// upgrade-done the node is benched (the template's bench, or the whole suite); a pass removes
// the taint, anything else keeps it (value Failed).
type UpgradeGateSpec struct {
	// drivers whose upgrade-state labels are followed.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +required
	Drivers []UpgradeDriver `json:"drivers"`

	// canaries turns on the class-wide test of a driver upgrade: per node class and new
	// driver version, the first canaries nodes whose bench after the upgrade passed form the
	// class's canary cohort, and the class's other upgraded nodes stay gated (Pending) until
	// the cohort's headline figures are shown equivalent to the class's figures on the old
	// driver, within equivalenceMarginPercent (two one-sided Welch tests at 5 %). A cohort
	// found worse holds them all and names the figure; one that cannot decide yet grows by
	// as many canaries as the test still needs. 0 (the default) judges each node alone.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Canaries int32 `json:"canaries,omitempty"`

	// equivalenceMarginPercent is how far (in percent of the old driver's mean) the canaries'
	// mean may lie from it, in either direction, and still count as equivalent.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +optional
	EquivalenceMarginPercent int32 `json:"equivalenceMarginPercent,omitempty"`

	// driverVersionLabel is the node label that names the driver version a node runs (GPU
	// Feature Discovery's, by default): nodes of a class are compared across its values.
	// +kubebuilder:default="nvidia.com/cuda.driver-version.full"
	// +kubebuilder:validation:MaxLength=253
	// +optional
	DriverVersionLabel string `json:"driverVersionLabel,omitempty"`
}

// UpgradeCohort is the class-wide test of one driver version on one node class: the canaries'
// headline figure against the class's on the old driver.
type UpgradeCohort struct {
	// class is the node class ("" when the fleet judges no classes: the whole pool).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Class string `json:"class,omitempty"`
	// driver is the new driver version (the value of spec.upgradeGate.driverVersionLabel).
	// +kubebuilder:validation:MaxLength=63
	// +required
	Driver string `json:"driver"`
	// figure is the compared figure (the fleet's headline).
	// +kubebuilder:validation:MaxLength=48
	// +required
	Figure string `json:"figure"`
	// decision: Equivalent (the class's other upgraded nodes are released on their own
	// benches), Worse (they stay held), or Undecided (they wait; moreNeeded says for what).
	// +kubebuilder:validation:Enum=Equivalent;Worse;Undecided
	// +required
	Decision string `json:"decision"`
	// canaries and reference are the sample sizes: the cohort on the new driver and the
	// class's nodes on the old one.
	// +optional
	Canaries int32 `json:"canaries,omitempty"`
	// +optional
	Reference int32 `json:"reference,omitempty"`
	// differenceMilliPercent is the canaries' mean against the reference's, in thousandths
	// of a percent, negative when worse (whatever the figure's direction).
	// +optional
	DifferenceMilliPercent int64 `json:"differenceMilliPercent,omitempty"`
	// pValueMicro is the test's p-value (the larger of the two one-sided tests), in millionths.
	// +optional
	PValueMicro int64 `json:"pValueMicro,omitempty"`
	// moreNeeded is how many more canaries an undecided test needs for power 0.8 at the
	// observed spread (-1: more canaries alone cannot decide it).
	// +optional
	MoreNeeded int32 `json:"moreNeeded,omitempty"`
	// message says it in words, with the numbers.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Message string `json:"message,omitempty"`
}

// SpiralBenchFleetSpec benches every node of a pool: in rounds (once, or on a schedule), at
// most maxParallel nodes at a time, skipping busy or recently benched nodes; and, with an
// upgrade gate, after every driver upgrade of a pool node.
//
// The template is validated as a SpiralBenchSpec; the placement rules of a SpiralBench are on
// the SpiralBench itself (spiralbench_types.go), so that what the fleet fills in is refused here
// with the fleet's own message, never with one asking for a placement.
//
// A suite's figure is read from the first step that has it (docs/qualification.md), so the
// suite rules ask for one step that can produce it. The built-in suites stream in their tcp
// step (and udp in Standard and Extended) and measure no latency; a step of the same name
// replaces a built-in one (pkg/fleet TestBuiltinSuitesStreamWhereTheFleetRuleSaysSo).
// +kubebuilder:validation:XValidation:rule="!has(self.template) || (!has(self.template.spec.suspend))",message="suspend the whole fleet with spec.suspend, not its template"
// +kubebuilder:validation:XValidation:rule="!has(self.pairingDomain) || self.pairing == 'Ring'",message="spec.pairingDomain chooses Ring partners: set spec.pairing Ring or remove pairingDomain"
// +kubebuilder:validation:XValidation:rule="has(self.template) != has(self.suite)",message="set exactly one of spec.template (one bench per node) and spec.suite (ordered steps per node)"
type SpiralBenchFleetSpec struct {
	// SpiralBenchFleetSpecRules carries the rules too long for a marker line (fleet_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SpiralBenchFleetSpecRules `json:",inline"`

	// nodeSelector selects the pool's nodes by label. Nodes that start or stop matching
	// join or leave the pool, mid-round included; status says so. A selector the manager could
	// not parse would select nothing and leave the fleet without status, so it is checked here.
	// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || self.matchExpressions.all(e, e.operator in ['In', 'NotIn', 'Exists', 'DoesNotExist'])",message="nodeSelector.matchExpressions[].operator must be In, NotIn, Exists or DoesNotExist (matchLabels says equals)"
	// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || self.matchExpressions.all(e, !(e.operator in ['In', 'NotIn']) || (has(e.values) && size(e.values) > 0))",message="nodeSelector.matchExpressions with operator In or NotIn need values: list at least one"
	// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || self.matchExpressions.all(e, !(e.operator in ['Exists', 'DoesNotExist']) || !has(e.values) || size(e.values) == 0)",message="nodeSelector.matchExpressions with operator Exists or DoesNotExist take no values: remove values, or use In or NotIn"
	// +required
	NodeSelector metav1.LabelSelector `json:"nodeSelector"`

	// tolerations are added to every bench's placement, so the fleet can bench nodes that are
	// tainted for GPU work. The fleet's own taints (verdict, upgrade gate) are always tolerated.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// template is the bench each node (or pair) gets: a one-step suite. Set it or suite.
	// +optional
	Template *FleetBenchTemplate `json:"template,omitempty"`

	// suite is the ordered list of steps (benches and external checks) each node (or pair)
	// runs in a round, with one verdict from all of them (docs/qualification.md). Set it or
	// template.
	// +optional
	Suite *SuiteSpec `json:"suite,omitempty"`

	// references judges every step's figures against the expected values of the node's
	// class in the reference catalog; a node matching no class is Invalid (NoReference).
	// +optional
	References *ReferenceSpec `json:"references,omitempty"`

	// pairing is None (a Loopback bench per node) or Ring (CrossNode benches between pool
	// nodes, rotated every round; a failed pair's nodes are each re-benched with a partner
	// that passed, so the verdict names the node at fault).
	// +kubebuilder:default=None
	// +optional
	Pairing FleetPairing `json:"pairing,omitempty"`

	// pairingDomain pairs Ring nodes inside a node-label domain (a rack, an NVLink clique) or
	// across domains on purpose; a node left without a partner is benched with one that passed.
	// +optional
	PairingDomain *PairingDomainSpec `json:"pairingDomain,omitempty"`

	// maxParallel is how many nodes are benched at once (a pair counts two).
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	// +optional
	MaxParallel int32 `json:"maxParallel,omitempty"`

	// schedule starts a round at each time of this cron expression: exactly five fields
	// (minute, hour, day of month, month, day of week; UTC, for example "0 3 * * 0"), or one of
	// @hourly, @daily, @weekly, @monthly, @yearly. Unset runs one round when the fleet is created.
	// The rule is anchored at both ends around the whole alternation, so a sixth field or a
	// word before the fields (CRON_TZ=..., which would move the schedule off UTC) is refused.
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^(@(hourly|daily|weekly|monthly|yearly)|[0-9A-Za-z*?/,-]+( +[0-9A-Za-z*?/,-]+){4})$')",message="spec.schedule is exactly five cron fields separated by spaces (minute hour day-of-month month day-of-week, in UTC; for example '0 3 * * 0') or one of @hourly, @daily, @weekly, @monthly, @yearly: remove any sixth field or word before the fields"
	// +optional
	Schedule string `json:"schedule,omitempty"`

	// minIntervalSeconds skips, in a round, nodes benched more recently than this.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=31536000
	// +optional
	MinIntervalSeconds int32 `json:"minIntervalSeconds,omitempty"`

	// factChecks reads each node's hardware facts between rounds, every intervalSeconds, and
	// fails the node or brings the round forward when a fact is wrong or changed (off by default).
	// +optional
	FactChecks *FactChecksSpec `json:"factChecks,omitempty"`

	// onlyIdleNodes waits with a node while any running pod other than SpiralBench's requests
	// nvidia.com/gpu or one of the template's devices on it.
	// +kubebuilder:default=true
	// +optional
	OnlyIdleNodes *bool `json:"onlyIdleNodes,omitempty"`

	// verdicts writes node verdicts onto the nodes (off by default).
	// +optional
	Verdicts *FleetVerdictSpec `json:"verdicts,omitempty"`

	// stragglers flags nodes far below the fleet's median.
	// +optional
	Stragglers *StragglerSpec `json:"stragglers,omitempty"`

	// baseline compares each node with its own history in the bucket.
	// +optional
	Baseline *HistoryBaselineSpec `json:"baseline,omitempty"`

	// upgradeGate benches nodes after driver upgrades and holds them until they pass.
	// +optional
	UpgradeGate *UpgradeGateSpec `json:"upgradeGate,omitempty"`

	// results is the bucket of the fleet summary (CSV and JSON per round) and of each node's
	// history. Benches without template.spec.results upload there too.
	// +optional
	Results *ResultsSpec `json:"results,omitempty"`

	// suspend starts no new bench; running ones finish. It may change at any time.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`
}

// NodeVerdict is where a node stands in the fleet.
// +kubebuilder:validation:Enum=Pending;Running;Passed;Failed;Invalid;Skipped;Left;Expired
type NodeVerdict string

const (
	// NodePending waits for a bench slot, for the node to be idle, or for a partner.
	NodePending NodeVerdict = "Pending"
	// NodeRunning has a bench running.
	NodeRunning NodeVerdict = "Running"
	// NodePassed: its bench passed.
	NodePassed NodeVerdict = "Passed"
	// NodeFailed: its bench broke a rule, a cell failed, it regressed against its history, or
	// (with stragglers.failNode) it straggled.
	NodeFailed NodeVerdict = "Failed"
	// NodeInvalid: its bench ran but the measurement cannot be trusted, or it could not run.
	NodeInvalid NodeVerdict = "Invalid"
	// NodeSkipped: benched less than minIntervalSeconds ago; not benched this round.
	NodeSkipped NodeVerdict = "Skipped"
	// NodeLeft: the node left the pool (deleted or no longer selected) before its verdict.
	NodeLeft NodeVerdict = "Left"
	// NodeExpired: its last verdict is older than verdicts.validSeconds (between rounds).
	NodeExpired NodeVerdict = "Expired"
)

// UpgradeGateState is where a node stands in the upgrade gate.
// +kubebuilder:validation:Enum=Upgrading;Benching;Held;Released
type UpgradeGateState string

const (
	// GateUpgrading: a driver upgrade is under way; the node carries the gate taint.
	GateUpgrading UpgradeGateState = "Upgrading"
	// GateBenching: the upgrade is done and the node's bench runs.
	GateBenching UpgradeGateState = "Benching"
	// GateHeld: the upgrade or the bench after it failed; the taint stays.
	GateHeld UpgradeGateState = "Held"
	// GateReleased: the bench after the upgrade passed; the taint is gone.
	GateReleased UpgradeGateState = "Released"
)

// FleetNode is one node's compact row; the detail (every repeat, the environment) is in the
// bench's status and in the bucket.
type FleetNode struct {
	// name of the node.
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
	// verdict of the node in the current round (or its last).
	// +required
	Verdict NodeVerdict `json:"verdict"`
	// step is the suite step the node is at (running or next), or the last one run.
	// +kubebuilder:validation:MaxLength=20
	// +optional
	Step string `json:"step,omitempty"`
	// reasons are the verdict's machine-readable reason codes, "Code" or "Code:step"
	// (docs/qualification.md has the table).
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=48
	// +listType=atomic
	// +optional
	Reasons []string `json:"reasons,omitempty"`
	// class is the reference catalog's node class the node matched.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Class string `json:"class,omitempty"`
	// validUntil is when the verdict expires (verdicts.validSeconds after the last step).
	// +optional
	ValidUntil *metav1.Time `json:"validUntil,omitempty"`
	// reason explains a Pending, Skipped, Failed or Invalid verdict in a few words.
	// +kubebuilder:validation:MaxLength=160
	// +optional
	Reason string `json:"reason,omitempty"`
	// partner is the node of its CrossNode bench this round (pairing Ring).
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Partner string `json:"partner,omitempty"`
	// bench is the SpiralBench that decided the verdict.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Bench string `json:"bench,omitempty"`
	// runID of that bench (its folder in the bucket).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	RunID string `json:"runID,omitempty"`
	// value of the headline metric (stragglers.metric, else RxMbps), in the metric's unit.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Value *int64 `json:"value,omitempty"`
	// baselineDeltaMilliPercent is the value's difference from its own history's mean, in
	// thousandths of a percent (-5000 is 5% worse for a higher-is-better metric's sign).
	// +optional
	BaselineDeltaMilliPercent *int32 `json:"baselineDeltaMilliPercent,omitempty"`
	// fleetDeltaMilliPercent is the value's difference from the round's median, in
	// thousandths of a percent.
	// +optional
	FleetDeltaMilliPercent *int32 `json:"fleetDeltaMilliPercent,omitempty"`
	// straggler: worse than the median by more than k x MAD.
	// +optional
	Straggler bool `json:"straggler,omitempty"`
	// regressed: worse than its own history by more than k x std.
	// +optional
	Regressed bool `json:"regressed,omitempty"`
	// lastBenchTime is when the node's last bench finished; minIntervalSeconds counts from it.
	// +optional
	LastBenchTime *metav1.Time `json:"lastBenchTime,omitempty"`
	// upgrade is the node's upgrade gate state, when a driver upgrade touched it.
	// +optional
	Upgrade UpgradeGateState `json:"upgrade,omitempty"`
	// steps are the node's suite steps in order once it is decided, each with its outcome,
	// headline figure and what that figure was judged against (at most MaxSuiteSteps).
	// +kubebuilder:validation:MaxItems=18
	// +listType=atomic
	// +optional
	Steps []FleetStepRecord `json:"steps,omitempty"`
	// stepsSummary counts the steps' outcomes, "3/3 passed, 2 excused": passed counts the
	// steps that passed or were excused.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	StepsSummary string `json:"stepsSummary,omitempty"`
}

// FleetNodeBrief names a node of a bounded status list with its verdict and reason codes.
type FleetNodeBrief struct {
	// name of the node.
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
	// verdict of the node.
	// +required
	Verdict NodeVerdict `json:"verdict"`
	// reasons are the verdict's first reason codes.
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxLength=48
	// +listType=atomic
	// +optional
	Reasons []string `json:"reasons,omitempty"`
}

// FleetCounts counts the pool's nodes by verdict.
type FleetCounts struct {
	// nodes in the pool now.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`
	// pending nodes of the round.
	// +optional
	Pending int32 `json:"pending,omitempty"`
	// running nodes.
	// +optional
	Running int32 `json:"running,omitempty"`
	// passed nodes.
	// +optional
	Passed int32 `json:"passed,omitempty"`
	// failed nodes.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// invalid nodes.
	// +optional
	Invalid int32 `json:"invalid,omitempty"`
	// skipped nodes (benched less than minIntervalSeconds ago).
	// +optional
	Skipped int32 `json:"skipped,omitempty"`
	// busy nodes: pending because a pod of another workload uses their GPUs or devices.
	// +optional
	Busy int32 `json:"busy,omitempty"`
	// joined is how many nodes joined the pool during the round.
	// +optional
	Joined int32 `json:"joined,omitempty"`
	// left is how many nodes left the pool during the round.
	// +optional
	Left int32 `json:"left,omitempty"`
	// stragglers flagged in the round.
	// +optional
	Stragglers int32 `json:"stragglers,omitempty"`
	// regressed nodes in the round.
	// +optional
	Regressed int32 `json:"regressed,omitempty"`
	// held nodes: the upgrade gate keeps them tainted.
	// +optional
	Held int32 `json:"held,omitempty"`
}

// Fleet condition types and reasons.
const (
	// FleetConditionRoundRunning is True while a round benches nodes.
	FleetConditionRoundRunning = "RoundRunning"
	// FleetConditionHealthy is False when a node of the last verdicts Failed or was Invalid.
	FleetConditionHealthy = "Healthy"
	// FleetConditionNodeWrites says whether verdict labels, taints and the upgrade gate can be
	// written (they need the manager's node patch rights).
	FleetConditionNodeWrites = "NodeWrites"

	ReasonRoundStarted       = "RoundStarted"
	ReasonRoundFinished      = "RoundFinished"
	ReasonAwaitingSchedule   = "AwaitingSchedule"
	ReasonAwaitingNodes      = "AwaitingNodes"
	ReasonInvalidSchedule    = "InvalidSchedule"
	ReasonAllNodesPassed     = "AllNodesPassed"
	ReasonNodesFailed        = "NodesFailed"
	ReasonNodeWritesOn       = "NodeWritesEnabled"
	ReasonNodeWritesOff      = "NodeWritesDisabled"
	ReasonNodeWritesUnneeded = "NotRequested"
)

// FleetPhase is a one-word summary of the fleet.
// +kubebuilder:validation:Enum=Pending;Running;Idle;Suspended
type FleetPhase string

const (
	FleetPending   FleetPhase = "Pending"
	FleetRunning   FleetPhase = "Running"
	FleetIdle      FleetPhase = "Idle"
	FleetSuspended FleetPhase = "Suspended"
)

// SpiralBenchFleetStatus stays the same size whatever the pool's size: counts, the round's
// progress, bounded lists of the failing and straggling nodes, and where every node's row is
// (one SpiralBenchNodeResult per node and round); the full numbers go to the bucket.
type SpiralBenchFleetStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// phase summarises the fleet in one word.
	// +optional
	Phase FleetPhase `json:"phase,omitempty"`
	// conditions: RoundRunning, Healthy, NodeWrites.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// round counts the rounds started, from 1.
	// +optional
	Round int32 `json:"round,omitempty"`
	// roundStartTime is when the current (or last) round started.
	// +optional
	RoundStartTime *metav1.Time `json:"roundStartTime,omitempty"`
	// roundCompletionTime is when the current round finished; unset while it runs.
	// +optional
	RoundCompletionTime *metav1.Time `json:"roundCompletionTime,omitempty"`
	// nextRoundTime is when the schedule starts the next round.
	// +optional
	NextRoundTime *metav1.Time `json:"nextRoundTime,omitempty"`
	// counts of the pool's nodes by verdict.
	// +optional
	Counts FleetCounts `json:"counts,omitempty"`
	// upgradeCohorts are the class-wide tests of driver upgrades (spec.upgradeGate.canaries),
	// one per class and new driver version, the most recent first.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	UpgradeCohorts []UpgradeCohort `json:"upgradeCohorts,omitempty"`
	// progress is "decided/nodes" of the current round, for kubectl get.
	// +optional
	Progress string `json:"progress,omitempty"`
	// median of the round's headline values (stragglers.metric, else RxMbps).
	// +optional
	Median *int64 `json:"median,omitempty"`
	// reasons counts the round's decided nodes by reason code (the code without its step).
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	Reasons map[string]int32 `json:"reasons,omitempty"`
	// failing are the round's Failed and Invalid nodes, the first in name order (at most
	// 20); failingOmitted counts the ones left out. Every node's row is a
	// SpiralBenchNodeResult: see results.
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	// +optional
	Failing []FleetNodeBrief `json:"failing,omitempty"`
	// failingOmitted is how many Failed and Invalid nodes failing leaves out.
	// +optional
	FailingOmitted int32 `json:"failingOmitted,omitempty"`
	// stragglers are the round's flagged stragglers, the first in name order (at most 20);
	// stragglersOmitted counts the ones left out.
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	// +optional
	Stragglers []FleetNodeBrief `json:"stragglers,omitempty"`
	// stragglersOmitted is how many stragglers the list leaves out.
	// +optional
	StragglersOmitted int32 `json:"stragglersOmitted,omitempty"`
	// results says where every node's row of the round is: SpiralBenchNodeResults in the
	// fleet's namespace with this label selector
	// (kubectl get sbnr -l "<results>").
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Results string `json:"results,omitempty"`
	// roundRequest is the last value of the annotation spiralbench.io/round-request that
	// started a round; setting the annotation to a new value starts one now.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	RoundRequest string `json:"roundRequest,omitempty"`
	// summary locates the last round's fleet summary (CSV and JSON) in the bucket.
	// +optional
	Summary *Artifacts `json:"summary,omitempty"`
}

// AnnotationRoundRequest on a fleet starts a round at once (when none runs) each time its
// value changes: `kubectl annotate sbf pool spiralbench.io/round-request=$(date +%s) --overwrite`.
const AnnotationRoundRequest = "spiralbench.io/round-request"

// SpiralBenchFleet qualifies a pool of nodes: it stamps out the SpiralBenches it owns, one
// per node (or node pair), and turns their results into node verdicts.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sbf,categories=spiral
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Round",type=integer,JSONPath=`.status.round`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`
// +kubebuilder:printcolumn:name="Passed",type=integer,JSONPath=`.status.counts.passed`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.counts.failed`
// +kubebuilder:printcolumn:name="Invalid",type=integer,JSONPath=`.status.counts.invalid`
// +kubebuilder:printcolumn:name="Suite",type=string,JSONPath=`.spec.suite.builtin`,priority=1
// +kubebuilder:printcolumn:name="Stragglers",type=integer,JSONPath=`.status.counts.stragglers`
// +kubebuilder:printcolumn:name="Healthy",type=string,JSONPath=`.status.conditions[?(@.type=="Healthy")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 24",message="metadata.name of a fleet must be at most 24 characters, so the SpiralBench names derived from it stay within 40"
type SpiralBenchFleet struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the pool and the bench.
	// +required
	Spec SpiralBenchFleetSpec `json:"spec"`

	// status reports rounds, node verdicts and counts.
	// +optional
	Status SpiralBenchFleetStatus `json:"status,omitempty"`
}

// SpiralBenchFleetList is a list of SpiralBenchFleet objects.
//
// +kubebuilder:object:root=true
type SpiralBenchFleetList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SpiralBenchFleet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SpiralBenchFleet{}, &SpiralBenchFleetList{})
}
