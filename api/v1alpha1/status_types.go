package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase is a one-word summary of where a bench stands; conditions carry the detail.
// +kubebuilder:validation:Enum=Pending;Queued;Running;Suspended;Completed;Failed
type Phase string

const (
	PhasePending   Phase = "Pending"
	PhaseQueued    Phase = "Queued"
	PhaseRunning   Phase = "Running"
	PhaseSuspended Phase = "Suspended"
	PhaseCompleted Phase = "Completed"
	PhaseFailed    Phase = "Failed"
)

// Condition types.
const (
	// ConditionAccepted is True once the spec was planned; False with reason InvalidSpec otherwise.
	ConditionAccepted = "Accepted"
	// ConditionRunning is True while cells run.
	ConditionRunning = "Running"
	// ConditionCompleted is True when every cell finished (Valid, Invalid or Failed).
	ConditionCompleted = "Completed"
	// ConditionFailed is True when the bench could not run to the end.
	ConditionFailed = "Failed"
	// ConditionPassed is the acceptance verdict.
	ConditionPassed = "Passed"
	// ConditionResultsUploaded says whether the bucket holds the results.
	ConditionResultsUploaded = "ResultsUploaded"
	// ConditionResultsReady says whether the results can be uploaded at all: checked before the
	// first cell (endpoint allowed; credentials Secret present, readable, opted in and complete;
	// CA bundle present). While it is False no cell starts and the bench waits in Pending.
	ConditionResultsReady = "ResultsReady"
)

// Condition reasons.
const (
	ReasonPlanned         = "Planned"
	ReasonInvalidSpec     = "InvalidSpec"
	ReasonAwaitingRunner  = "AwaitingExecution"
	ReasonNodeBusy        = "NodeBusy"
	ReasonCellsRunning    = "CellsRunning"
	ReasonSuspended       = "Suspended"
	ReasonAllCellsDone    = "AllCellsFinished"
	ReasonRulesHeld       = "RulesHeld"
	ReasonRulesBroken     = "RulesBroken"
	ReasonNoRules         = "NoRules"
	ReasonUploaded        = "Uploaded"
	ReasonUploadFailed    = "UploadFailed"
	ReasonBaselineMissing = "BaselineMissing"
	// Reasons of ResultsReady (and of Running=False ResultsNotReady while it is False).
	ReasonResultsReachable   = "CredentialsReadable"
	ReasonResultsNotReady    = "ResultsNotReady"
	ReasonSecretNotFound     = "SecretNotFound"
	ReasonSecretForbidden    = "SecretForbidden"
	ReasonSecretNotLabelled  = "SecretNotLabelled"
	ReasonSecretIncomplete   = "SecretIncomplete"
	ReasonEndpointNotAllowed = "EndpointNotAllowed"
	ReasonCABundleNotFound   = "CABundleNotFound"
)

// Reasons of the Passed condition besides the rules' (acceptance.Decide).
const (
	// ReasonCellsFailed: Passed is False because some planned cells measured no result (or
	// fewer repeats than planned), whatever the rules say.
	ReasonCellsFailed = "CellsFailed"
	// ReasonCellsInvalid: Passed is False because some cells measured but cannot be trusted.
	ReasonCellsInvalid = "CellsInvalid"
	// ReasonFailedCellsAllowed: Passed is True although some cells Failed or were Invalid,
	// because spec.acceptance.allowFailedCells says so.
	ReasonFailedCellsAllowed = "FailedCellsAllowed"
)

// CellState is the outcome of a cell.
// +kubebuilder:validation:Enum=Pending;Running;Valid;Invalid;Failed
type CellState string

const (
	CellPending CellState = "Pending"
	CellRunning CellState = "Running"
	// CellValid ran to the end and its counters agree.
	CellValid CellState = "Valid"
	// CellInvalid ran to the end but the measurement cannot be trusted (see message).
	CellInvalid CellState = "Invalid"
	// CellFailed did not run to the end within its retries.
	CellFailed CellState = "Failed"
)

// CellParameters are the coordinates of a cell in the matrix.
type CellParameters struct {
	// payloadBytes of the cell.
	PayloadBytes int32 `json:"payloadBytes"`
	// batch (packets per burst; 1 for non-raw transports). Absent means 1.
	// +optional
	Batch int32 `json:"batch,omitempty"`
	// pairs of sockets (1 for non-socket transports). Absent means 1.
	// +optional
	Pairs int32 `json:"pairs,omitempty"`
	// queues (TX,RX); 1,1 for non-raw transports. Absent means 1,1.
	// +optional
	Queues QueueCell `json:"queues,omitempty"`
	// targetRateMbps of the sender; 0 or absent is unpaced.
	// +optional
	TargetRateMbps int32 `json:"targetRateMbps,omitempty"`
	// workload run on the received data. Absent means None.
	// +optional
	Workload WorkloadKind `json:"workload,omitempty"`
	// workloadBatchBytes fed to one compute call; 0 is the receive window.
	// +optional
	WorkloadBatchBytes int32 `json:"workloadBatchBytes,omitempty"`
	// forwardWork of a RawEthernet forward cell; empty elsewhere.
	// +optional
	ForwardWork ForwardWork `json:"forwardWork,omitempty"`
	// memory of the forwarder's mbuf pool in a RawEthernet forward cell; empty elsewhere.
	// +optional
	Memory MemoryKind `json:"memory,omitempty"`
}

// Statistic is the mean and sample standard deviation over repeats.
type Statistic struct {
	// mean over the valid repeats.
	Mean int64 `json:"mean"`
	// stdDev is the sample standard deviation over the valid repeats; absent (0) for one repeat.
	// +optional
	StdDev int64 `json:"stdDev,omitempty"`
}

// CPUBusy is the busy share of the pinned cores of each role, in milli-percent (100000 = 100%).
// A share is absent where that side pinned no core (Go reads it as -1): the data plane measures
// the busy share of pinned cores only, as DAQIRI does (status_json.go).
type CPUBusy struct {
	// masterMilliPercent is the orchestration core's busy share.
	// +optional
	MasterMilliPercent int32 `json:"masterMilliPercent,omitempty"`
	// txMilliPercent is the mean busy share of the sending (TX poller) cores.
	// +optional
	TXMilliPercent int32 `json:"txMilliPercent,omitempty"`
	// rxMilliPercent is the mean busy share of the receiving (RX poller) cores.
	// +optional
	RXMilliPercent int32 `json:"rxMilliPercent,omitempty"`
}

// GPUBusy is the GPU's SM and memory-controller utilisation in milli-percent; a share NVML
// could not tell is absent (Go reads it as -1).
type GPUBusy struct {
	// smMilliPercent is the streaming-multiprocessor utilisation (NVML).
	// +optional
	SMMilliPercent int32 `json:"smMilliPercent,omitempty"`
	// memoryMilliPercent is the memory-controller utilisation (NVML).
	// +optional
	MemoryMilliPercent int32 `json:"memoryMilliPercent,omitempty"`
}

// Latency percentiles of a ping-pong cell, in nanoseconds.
type Latency struct {
	// minNanoseconds is the fastest round trip halved.
	// +kubebuilder:validation:Minimum=0
	MinNanoseconds int64 `json:"minNanoseconds"`
	// p50Nanoseconds is the median one-way latency.
	// +kubebuilder:validation:Minimum=0
	P50Nanoseconds int64 `json:"p50Nanoseconds"`
	// p99Nanoseconds is the 99th percentile one-way latency.
	// +kubebuilder:validation:Minimum=0
	P99Nanoseconds int64 `json:"p99Nanoseconds"`
	// p999Nanoseconds is the 99.9th percentile one-way latency.
	// +kubebuilder:validation:Minimum=0
	// +optional
	P999Nanoseconds int64 `json:"p999Nanoseconds,omitempty"`
	// maxNanoseconds is the slowest round trip halved.
	// +kubebuilder:validation:Minimum=0
	MaxNanoseconds int64 `json:"maxNanoseconds"`
}

// CellResult is one cell's aggregate over its repeats.
type CellResult struct {
	// index of the cell in the plan, from 0.
	Index int32 `json:"index"`
	// headline marks the transport's headline cell.
	// +optional
	Headline bool `json:"headline,omitempty"`

	// boundBy says what held the cell's headline figure back, against its physical ceiling
	// (docs/ceilings.md): "0.96 of 57.6 GB/s (PCIe)", "CPU: RX core 3 busy 99 %", or why the
	// ceiling is unknown. `sbctl explain` gives the ceiling's model and the numbers.
	// +kubebuilder:validation:MaxLength=160
	// +optional
	BoundBy string `json:"boundBy,omitempty"`
	// parameters of the cell.
	Parameters CellParameters `json:"parameters"`
	// state of the cell.
	State CellState `json:"state"`
	// repeats that produced a measurement.
	Repeats int32 `json:"repeats"`
	// attempts made, retries included. One attempt may measure several repeats (a pod pair
	// runs the repeats of a socket cell back to back).
	Attempts int32 `json:"attempts"`
	// failedAttempts counts the attempts that ended before measuring every repeat they ran;
	// retriesPerCell bounds it. The repeats such an attempt finished are kept.
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedAttempts int32 `json:"failedAttempts,omitempty"`
	// startTime is when the cell's first pod was created.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// completionTime is when the cell finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// rxMbps is the receiver's application throughput (goodput).
	// +optional
	RXMbps *Statistic `json:"rxMbps,omitempty"`
	// drops summed over repeats.
	// +optional
	Drops int64 `json:"drops,omitempty"`
	// dropsKind says what was counted as drops, DAQIRI's names (for example
	// udp-proc-net-udp-drops, tcp-nstat-retrans+inerrs, rdma-cqe-error, dpdk-imissed+ierrors+nombuf).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	DropsKind string `json:"dropsKind,omitempty"`
	// latency percentiles (RoCE, TCP and UDP latency mode) over the repeats: the lowest minimum,
	// the median of the medians, the highest p99, p99.9 and maximum.
	// +optional
	Latency *Latency `json:"latency,omitempty"`
	// search is what run.search found over the repeats: the NDR (and PDR) mean and standard deviation.
	// +optional
	Search *SearchStatistics `json:"search,omitempty"`

	// message explains an Invalid or Failed state.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`
	// Like its repeats (below), the cell's secondary figures are not stored in the bench:
	// `kubectl describe sb` prints every field of status on a line of its own, and they made up
	// a third of a cell's lines. They are computed from the repeats (pkg/aggregate.Derive) wherever the repeats are
	// attached, so the controller's judge, fleets, sbctl, the metrics and the uploaded files
	// all have them; a bench read without its attempt results has only the stored figures.

	// TXMbps is the sender's application throughput.
	TXMbps *Statistic `json:"-"`
	// PacketsPerSecond at the receiver.
	PacketsPerSecond *Statistic `json:"-"`
	// LossPPM is the application loss (TX - RX) / TX in parts per million, mean over repeats.
	LossPPM int64 `json:"-"`
	// CPU busy per role, mean over repeats.
	CPU *CPUBusy `json:"-"`
	// GPU utilisation, mean over repeats.
	GPU *GPUBusy `json:"-"`
	// Spread of the headline figure over the Valid repeats; nil with fewer than two.
	Spread *CellSpread `json:"-"`
	// Noisy is true when Spread exceeds spec.run.noisySpreadPercent: the mean is too uncertain
	// to compare. The cell is not failed for it (a NoisyCell event names the cell and its
	// spread; acceptance rules on RxMbpsCVMilliPercent bound it). The bench stores the count,
	// status.cells.noisy.
	Noisy bool `json:"-"`
	// Wire is the worst wire verdict of the cell's repeats (wire_types.go); the bench stores
	// the worst of every cell's, status.wire.
	Wire WireVerdict `json:"-"`

	// RepeatResults are the measurements of each repeat, in attempt order. They are not
	// stored in the bench (its status would grow by a screen per repeat): each attempt's
	// repeats are a SpiralBenchAttemptResult, which the controller, sbctl and fleets attach
	// here with pkg/attempts.Attach after reading the bench.
	RepeatResults []RepeatResult `json:"-"`
}

// RepeatResult is one repeat of a cell as the data plane reported it. Its rates, counts, times
// and latencies are never negative: admission refuses a negative one.
type RepeatResult struct {
	// repeat number, from 0.
	// +kubebuilder:validation:Minimum=0
	Repeat int32 `json:"repeat"`
	// attempt that produced it, from 0 (retries included).
	// +kubebuilder:validation:Minimum=0
	Attempt int32 `json:"attempt"`
	// state of the measurement: Valid or Invalid.
	State CellState `json:"state"`
	// measuredMilliseconds is the length of the measured window.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MeasuredMilliseconds int64 `json:"measuredMilliseconds,omitempty"`
	// startupMilliseconds is from the first pod's creation to the sender's container start
	// (scheduling, image, server readiness, client creation): the operator's overhead before data.
	// It and wallMilliseconds are the attempt's, on its first repeat only: the later repeats an
	// attempt ran in the same pods leave both at 0.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartupMilliseconds int64 `json:"startupMilliseconds,omitempty"`
	// wallMilliseconds is from the first pod's creation to the last container's end (every
	// repeat of the attempt).
	// +kubebuilder:validation:Minimum=0
	// +optional
	WallMilliseconds int64 `json:"wallMilliseconds,omitempty"`
	// txMbps is the sender's application throughput.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TXMbps int64 `json:"txMbps,omitempty"`
	// rxMbps is the receiver's application throughput.
	// +kubebuilder:validation:Minimum=0
	// +optional
	RXMbps int64 `json:"rxMbps,omitempty"`
	// txPackets sent in the measured window.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TXPackets int64 `json:"txPackets,omitempty"`
	// rxPackets received in the measured window.
	// +kubebuilder:validation:Minimum=0
	// +optional
	RXPackets int64 `json:"rxPackets,omitempty"`
	// txBytes sent in the measured window.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TXBytes int64 `json:"txBytes,omitempty"`
	// rxBytes received in the measured window.
	// +kubebuilder:validation:Minimum=0
	// +optional
	RXBytes int64 `json:"rxBytes,omitempty"`
	// packetsPerSecond at the receiver.
	// +kubebuilder:validation:Minimum=0
	// +optional
	PacketsPerSecond int64 `json:"packetsPerSecond,omitempty"`
	// drops counted (see dropsKind).
	// +kubebuilder:validation:Minimum=0
	// +optional
	Drops int64 `json:"drops,omitempty"`
	// dropsKind names what drops counts.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	DropsKind string `json:"dropsKind,omitempty"`
	// sequenceGaps are the sequence numbers the receiver never saw (sequenced kinds), the drop
	// source besides drops.
	// +kubebuilder:validation:Minimum=0
	// +optional
	SequenceGaps int64 `json:"sequenceGaps,omitempty"`
	// socketRetrans are the segments the sending sockets retransmitted (TCP_INFO).
	// +kubebuilder:validation:Minimum=0
	// +optional
	SocketRetrans int64 `json:"socketRetrans,omitempty"`
	// lossPPM is (TX - RX) / TX in parts per million.
	// +kubebuilder:validation:Minimum=0
	// +optional
	LossPPM int64 `json:"lossPPM,omitempty"`
	// cpu busy per role.
	// +optional
	CPU *CPUBusy `json:"cpu,omitempty"`
	// gpu utilisation.
	// +optional
	GPU *GPUBusy `json:"gpu,omitempty"`
	// latency percentiles (RoCE, TCP and UDP latency mode).
	// +optional
	Latency *Latency `json:"latency,omitempty"`
	// collective is an NCCL cell's sweep: a row per size, and the transports NCCL chose.
	// +optional
	Collective *CollectiveResult `json:"collective,omitempty"`
	// copies is a GPUCopy cell's sweep: a row per GPU, direction, host memory and size.
	// +optional
	Copies *CopyResult `json:"copies,omitempty"`
	// search is what this repeat's run.search found; its other figures are those of the
	// verification trial at the NDR.
	// +optional
	Search *SearchResult `json:"search,omitempty"`

	// wire is the proof that the bytes crossed the cable (PHY counters), with per-link rows.
	// +optional
	Wire *WireProof `json:"wire,omitempty"`
	// message explains an Invalid state.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Message string `json:"message,omitempty"`
}

// ActiveAttempt is the repeat attempt whose pods are running now.
type ActiveAttempt struct {
	// cellIndex of the cell being measured.
	CellIndex int32 `json:"cellIndex"`
	// repeat being measured, from 0: the first of the attempt's repeats.
	Repeat int32 `json:"repeat"`
	// repeats the attempt runs back to back in one set of pods, from repeat on; 0 means 1.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Repeats int32 `json:"repeats,omitempty"`
	// attempt number within the cell, from 0; pod names carry it.
	Attempt int32 `json:"attempt"`
	// startTime is when its first pod was created; the cell deadline counts from it.
	StartTime metav1.Time `json:"startTime"`
}

// CellCounts counts the cells of the plan by outcome.
type CellCounts struct {
	// total cells in the plan.
	// +optional
	Total int32 `json:"total,omitempty"`
	// succeeded cells: Valid results.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`
	// failed cells: no result within the retries. Defaulted, so that kubectl's column says 0,
	// not nothing, whatever the status patches left out.
	// +kubebuilder:default=0
	// +optional
	Failed int32 `json:"failed"`
	// invalid cells: ran, but the measurement cannot be trusted.
	// +kubebuilder:default=0
	// +optional
	Invalid int32 `json:"invalid"`
	// noisy cells: finished with a headline figure whose repeats spread beyond
	// spec.run.noisySpreadPercent (the NoisyCell events name them).
	// +optional
	Noisy int32 `json:"noisy,omitempty"`
}

// Environment is what results are comparable on.
type Environment struct {
	// gpuModel as NVML names it, for example NVIDIA GB10.
	// +optional
	GPUModel string `json:"gpuModel,omitempty"`
	// gpuDriver version.
	// +optional
	GPUDriver string `json:"gpuDriver,omitempty"`
	// nicDriver name and version (ethtool -i).
	// +optional
	NICDriver string `json:"nicDriver,omitempty"`
	// nicFirmware version (ethtool -i).
	// +optional
	NICFirmware string `json:"nicFirmware,omitempty"`
	// kernel release of the node.
	// +optional
	Kernel string `json:"kernel,omitempty"`
	// image of the data plane, by digest where known.
	// +optional
	Image string `json:"image,omitempty"`
	// node the server side ran on.
	// +optional
	Node string `json:"node,omitempty"`

	// What the data plane captured on the server rank (environment_types.go).
	EnvironmentDetail `json:",inline"`
}

// Artifacts locates the uploaded results.
type Artifacts struct {
	// runID names this run's folder in the bucket.
	// +optional
	RunID string `json:"runID,omitempty"`
	// uris of the uploaded objects (s3://bucket/key).
	// +listType=atomic
	// +optional
	URIs []string `json:"uris,omitempty"`
}

// SpiralBenchStatus is the observed state of a SpiralBench.
type SpiralBenchStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// phase summarises the conditions in one word.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// conditions: Accepted, Running, Completed, Failed, Passed, ResultsUploaded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// startTime is when the first cell started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the last cell finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// cells counts the plan's cells by outcome.
	// +optional
	Cells CellCounts `json:"cells,omitempty"`

	// progress is "finished/total" cells.
	// +optional
	Progress string `json:"progress,omitempty"`

	// cellsSummary counts the cells by outcome for kubectl get, for example "11/20 ok, 9 failed".
	// +optional
	CellsSummary string `json:"cellsSummary,omitempty"`

	// bestRxMbps is the highest mean RX throughput of any valid cell.
	// +optional
	BestRxMbps int64 `json:"bestRxMbps,omitempty"`

	// wire is the worst wire verdict of the finished cells (wire_types.go): Crossed only when
	// every cell's bytes were seen on the cable; empty where the kind does not check. Each
	// cell's own is in `sbctl results`, the report and runs.csv.
	// +optional
	Wire WireVerdict `json:"wire,omitempty"`

	// nodes this bench holds a lease on while it runs (one bench per node at a time).
	// +listType=atomic
	// +optional
	Nodes []string `json:"nodes,omitempty"`

	// nodesText is nodes for kubectl get, comma-separated, each once: "node-a,node-b".
	// +kubebuilder:validation:MaxLength=256
	// +optional
	NodesText string `json:"nodesText,omitempty"`

	// activeAttempt is the repeat attempt running now, if any.
	// +optional
	ActiveAttempt *ActiveAttempt `json:"activeAttempt,omitempty"`

	// cellResults fill in as cells finish, in plan order.
	// +listType=map
	// +listMapKey=index
	// +optional
	CellResults []CellResult `json:"cellResults,omitempty"`

	// environment the results were measured on.
	// +optional
	Environment *Environment `json:"environment,omitempty"`

	// baseline is what the verdict compared with (spec.acceptance.baseline), read once when the
	// bench completed; the results bucket keeps a copy, so a run read back from it is judged
	// the same way.
	// +optional
	Baseline *BaselineFigures `json:"baseline,omitempty"`

	// artifacts in the results bucket.
	// +optional
	Artifacts *Artifacts `json:"artifacts,omitempty"`
}
