package v1alpha1

// Metric is a per-cell result an acceptance rule checks; its unit is in its name.
// +kubebuilder:validation:Enum=RxMbps;TxMbps;RxMbpsStdDev;PacketsPerSecond;Drops;LossPPM;CPUTXMilliPercent;CPURXMilliPercent;GPUSMMilliPercent;LatencyP50Nanoseconds;LatencyP99Nanoseconds;NDRMbps;NDRMbpsStdDev;PDRMbps;LatencyP999Nanoseconds;NCCLBusbwMBps;CopyH2DMBps;CopyD2HMBps;RxMbpsCVMilliPercent
type Metric string

const (
	MetricRxMbps                Metric = "RxMbps"
	MetricTxMbps                Metric = "TxMbps"
	MetricRxMbpsStdDev          Metric = "RxMbpsStdDev"
	MetricPacketsPerSecond      Metric = "PacketsPerSecond"
	MetricDrops                 Metric = "Drops"
	MetricLossPPM               Metric = "LossPPM"
	MetricCPUTXMilliPercent     Metric = "CPUTXMilliPercent"
	MetricCPURXMilliPercent     Metric = "CPURXMilliPercent"
	MetricGPUSMMilliPercent     Metric = "GPUSMMilliPercent"
	MetricLatencyP50Nanoseconds Metric = "LatencyP50Nanoseconds"
	MetricLatencyP99Nanoseconds Metric = "LatencyP99Nanoseconds"
	// MetricNDRMbps is the no-drop rate a run.search found (mean over repeats; 0 for a repeat
	// below the lower bound). Cells without a search have none, and a rule on them fails.
	MetricNDRMbps Metric = "NDRMbps"
	// MetricNDRMbpsStdDev is its standard deviation over the repeats.
	MetricNDRMbpsStdDev Metric = "NDRMbpsStdDev"
	// MetricPDRMbps is the partial drop rate (run.search.pdrTolerancePPM), mean over repeats.
	MetricPDRMbps Metric = "PDRMbps"
	// MetricLatencyP999Nanoseconds is the 99.9th percentile one-way latency of a latency-mode cell.
	MetricLatencyP999Nanoseconds Metric = "LatencyP999Nanoseconds"
	// MetricNCCLBusbwMBps is an NCCL cell's bus bandwidth (nccl-tests' busbw) in MB/s, mean over
	// repeats.
	MetricNCCLBusbwMBps Metric = "NCCLBusbwMBps"
	// MetricCopyH2DMBps and MetricCopyD2HMBps are a GPUCopy cell's host-to-device and
	// device-to-host rates in MB/s (the slowest GPU's, as the copy kind reports them).
	MetricCopyH2DMBps Metric = "CopyH2DMBps"
	MetricCopyD2HMBps Metric = "CopyD2HMBps"
	// MetricRxMbpsCVMilliPercent is the spread of a streaming cell's RxMbps over its Valid
	// repeats (coefficient of variation, thousandths of a percent): a rule bounds how noisy a
	// cell may be. Cells with fewer than 2 Valid repeats have none, and a rule on them breaks.
	MetricRxMbpsCVMilliPercent Metric = "RxMbpsCVMilliPercent"
)

// Operator compares an observed metric with a rule's value.
// +kubebuilder:validation:Enum=GreaterThanOrEqual;GreaterThan;LessThanOrEqual;LessThan;Equal
type Operator string

const (
	OperatorGreaterThanOrEqual Operator = "GreaterThanOrEqual"
	OperatorGreaterThan        Operator = "GreaterThan"
	OperatorLessThanOrEqual    Operator = "LessThanOrEqual"
	OperatorLessThan           Operator = "LessThan"
	OperatorEqual              Operator = "Equal"
)

// CellScope says which cells a rule applies to.
// +kubebuilder:validation:Enum=Headline;Each
type CellScope string

const (
	// CellScopeHeadline is the transport's headline cell (or the first cell when the plan lacks it).
	CellScopeHeadline CellScope = "Headline"
	// CellScopeEach is every cell matching the selector's parameters; the rule must hold for each.
	CellScopeEach CellScope = "Each"
)

// CellSelector picks cells by scope and, with scope Each, by parameters (unset matches any).
type CellSelector struct {
	// CellSelectorRules carries the rules too long for a marker line (acceptance_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	CellSelectorRules `json:",inline"`

	// scope is Headline or Each.
	// +kubebuilder:default=Headline
	// +optional
	Scope CellScope `json:"scope,omitempty"`

	// payloadBytes matches cells of this payload.
	// +optional
	PayloadBytes *int32 `json:"payloadBytes,omitempty"`

	// batch matches cells of this batch.
	// +optional
	Batch *int32 `json:"batch,omitempty"`

	// pairs matches cells of this pair count.
	// +optional
	Pairs *int32 `json:"pairs,omitempty"`

	// queues matches cells of this queue cell.
	// +optional
	Queues *QueueCell `json:"queues,omitempty"`

	// targetRateMbps matches cells of this target rate.
	// +optional
	TargetRateMbps *int32 `json:"targetRateMbps,omitempty"`
}

// AcceptanceRule is one check of the selected cells' metric: against a value (operator and
// value), or against the physical ceiling the node's own hardware sets for it
// (minFractionOfCeiling), so that one rule serves every SKU.
type AcceptanceRule struct {
	// AcceptanceRuleRules carries the rules too long for a marker line (acceptance_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	AcceptanceRuleRules `json:",inline"`

	// name identifies the rule in the Passed condition's message.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// metric to check (mean over repeats, unit in the name).
	// +required
	Metric Metric `json:"metric"`

	// cells the rule applies to.
	// +kubebuilder:default={}
	// +optional
	Cells CellSelector `json:"cells,omitempty"`

	// operator compares the observed value with value. Required unless minFractionOfCeiling
	// is set.
	// +optional
	Operator Operator `json:"operator,omitempty"`

	// value to compare with, in the metric's unit. Required with operator.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Value int64 `json:"value"`

	// minFractionOfCeiling checks each selected cell's metric against the physical ceiling of
	// its path on this node (sbctl explain; docs/ceilings.md): the metric must reach at least
	// this fraction of it, a decimal in (0, 1], for example "0.9". A cell whose ceiling is
	// unknown (a fact not recorded, a path with no wire) breaks the rule, saying why. Metrics
	// with a ceiling model: RxMbps of a streaming bench, NCCLBusbwMBps, CopyH2DMBps and
	// CopyD2HMBps. Set it instead of operator and value.
	// +kubebuilder:validation:Pattern=`^(0\.[0-9]{1,3}|1(\.0{1,3})?)$`
	// +optional
	MinFractionOfCeiling string `json:"minFractionOfCeiling,omitempty"`
}

// BaselineSpec compares results with an earlier SpiralBench of the same plan.
type BaselineSpec struct {
	// BaselineSpecRules carries the rules too long for a marker line (acceptance_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	BaselineSpecRules `json:",inline"`

	// spiralBenchName is a completed SpiralBench in the same namespace to compare with.
	// +kubebuilder:validation:MaxLength=253
	// +required
	SpiralBenchName string `json:"spiralBenchName"`

	// maxRegressionPercent is how far RxMbps of any cell may fall below the baseline's.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxRegressionPercent *int32 `json:"maxRegressionPercent,omitempty"`

	// requireSameEnvironment fails the comparison when the environmentKeys differ from the
	// baseline's, instead of comparing anyway.
	// +optional
	RequireSameEnvironment bool `json:"requireSameEnvironment,omitempty"`

	// environmentKeys are the status.environment fields that must match for requireSameEnvironment
	// (docs/wire.md "Comparable environment"); empty: gpuDriver, nicFirmware, kernel and image.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	EnvironmentKeys []EnvironmentKey `json:"environmentKeys,omitempty"`
}

// AcceptanceSpec turns results into the Passed condition.
type AcceptanceSpec struct {
	// rules must all hold for Passed to be True.
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	// +optional
	Rules []AcceptanceRule `json:"rules,omitempty"`

	// baseline, when set, is compared with as well.
	// +optional
	Baseline *BaselineSpec `json:"baseline,omitempty"`

	// allowFailedCells lets Passed be True although some cells Failed (no result within their
	// retries) or were Invalid: the rules and the baseline are then judged on the Valid cells,
	// at least one cell must be Valid, and the Passed condition says reason FailedCellsAllowed
	// and names the cells. Unset, Passed is True only when every planned cell measured every
	// repeat Valid.
	// +optional
	AllowFailedCells bool `json:"allowFailedCells,omitempty"`
}

// BaselineFigures are the baseline bench's figures a verdict compared with: its RX mean for
// each cell of this bench that has a Valid baseline cell of the same parameters.
type BaselineFigures struct {
	// spiralBenchName is the baseline bench.
	// +kubebuilder:validation:MaxLength=253
	SpiralBenchName string `json:"spiralBenchName"`
	// problem says why the baseline could not vouch (not found, not completed, a different
	// environment); empty when its figures were read.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Problem string `json:"problem,omitempty"`
	// cells are the baseline's figures by this bench's cell index.
	// +listType=atomic
	// +optional
	Cells []BaselineCell `json:"cells,omitempty"`
}

// BaselineCell is the baseline's mean RX throughput for one cell of this bench.
type BaselineCell struct {
	// index of this bench's cell.
	Index int32 `json:"index"`
	// rxMbps is the baseline cell's mean RX throughput.
	RXMbps int64 `json:"rxMbps"`
}
