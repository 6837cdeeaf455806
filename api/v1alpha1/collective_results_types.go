package v1alpha1

// NCCLCheck is the outcome of the element-by-element check of one size (nccl-tests -c).
// +kubebuilder:validation:Enum=Passed;Failed;NotChecked;NotDefined
type NCCLCheck string

const (
	// NCCLCheckPassed: every checked element held what the operation must produce.
	NCCLCheckPassed NCCLCheck = "Passed"
	// NCCLCheckFailed: wrongElements elements did not.
	NCCLCheckFailed NCCLCheck = "Failed"
	// NCCLCheckNotChecked: checkIterations was 0.
	NCCLCheckNotChecked NCCLCheck = "NotChecked"
	// NCCLCheckNotDefined: an in-place row of an operation NCCL defines no in-place form for
	// (SendRecv, AllToAll, AllToAllv): timed as nccl-tests times it, never checked (nccl-tests prints N/A).
	NCCLCheckNotDefined NCCLCheck = "NotDefined"
)

// CollectiveResult is what one repeat of an NCCL cell measured: a row per size and placement
// (nccl-tests' table) and the transport NCCL chose between each pair of ranks.
type CollectiveResult struct {
	// operation measured.
	Operation NCCLOperation `json:"operation"`
	// ranks of the communicator (GPUs).
	Ranks int32 `json:"ranks"`
	// ncclVersion of the library the ranks loaded, as NCCL reports it ("2.28.9+cuda13.0").
	// +kubebuilder:validation:MaxLength=64
	// +optional
	NCCLVersion string `json:"ncclVersion,omitempty"`
	// network NCCL chose between nodes ("IB", "Socket"); empty when it used none.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Network string `json:"network,omitempty"`
	// sizes are the rows, in sweep order, out of place before in place.
	// +kubebuilder:validation:MaxItems=128
	// +listType=atomic
	// +optional
	Sizes []CollectiveSize `json:"sizes,omitempty"`
	// peers are the transports NCCL chose, one per pair of ranks and transport.
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	Peers []PeerTransport `json:"peers,omitempty"`
}

// CollectiveSize is one row of an NCCL sweep.
type CollectiveSize struct {
	// bytes is nccl-tests' size: the larger of one rank's send and receive buffers.
	Bytes int64 `json:"bytes"`
	// inPlace is true for the in-place measurement of this size.
	// +optional
	InPlace bool `json:"inPlace,omitempty"`
	// timeNanoseconds per operation (the ranks' mean).
	TimeNanoseconds int64 `json:"timeNanoseconds"`
	// algbwMBps is the algorithm bandwidth in MB/s (10^6 bytes per second), as nccl-tests.
	AlgbwMBps int64 `json:"algbwMBps"`
	// busbwMBps is the bus bandwidth in MB/s (10^6 bytes per second), as nccl-tests.
	BusbwMBps int64 `json:"busbwMBps"`
	// check outcome of this size.
	Check NCCLCheck `json:"check"`
	// wrongElements counted by the check, summed over ranks.
	// +optional
	WrongElements int64 `json:"wrongElements,omitempty"`
	// p50Nanoseconds is the median of the operations' own times: a pass of its own after the
	// timed mean, CUDA events between the operations (nccl-tests 2.19's -I); the largest of the
	// ranks' medians, to 0.1% of timeNanoseconds. Absent when not measured.
	// +optional
	P50Nanoseconds int64 `json:"p50Nanoseconds,omitempty"`
	// p99Nanoseconds is the 99th percentile of the same times, as p50Nanoseconds.
	// +optional
	P99Nanoseconds int64 `json:"p99Nanoseconds,omitempty"`
	// slowestRank is the rank whose own mean time was the largest (timeNanoseconds is the
	// ranks' mean); meaningful when slowestNanoseconds is set.
	// +optional
	SlowestRank int32 `json:"slowestRank,omitempty"`
	// slowestNanoseconds is that rank's mean time per operation, to 0.1% of timeNanoseconds.
	// +optional
	SlowestNanoseconds int64 `json:"slowestNanoseconds,omitempty"`
}

// PeerTransport is the transport NCCL picked from one rank to another, from its own log.
type PeerTransport struct {
	// fromRank sends.
	FromRank int32 `json:"fromRank"`
	// toRank receives.
	ToRank int32 `json:"toRank"`
	// transport family: P2P/NVLink or P2P/PCIe (NCCL's P2P, the wire from NVML on each rank;
	// P2P when a rank could not tell), SHM, NET/IB, NET/Socket, NET/other or CollNet.
	// +kubebuilder:validation:MaxLength=32
	Transport string `json:"transport"`
	// via is NCCL's own words, for example NET/IB/0/GDRDMA.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Via string `json:"via,omitempty"`
}

// CopyResult is what one repeat of a GPUCopy cell measured on each GPU of the node, and between
// them.
type CopyResult struct {
	// gpus measured, with where each sits.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	GPUs []GPUPlacement `json:"gpus,omitempty"`
	// sizes are the rows: per GPU, per direction and host memory, per size.
	// +kubebuilder:validation:MaxItems=512
	// +listType=atomic
	// +optional
	Sizes []CopySize `json:"sizes,omitempty"`
	// peerLinks is what connects each pair of GPUs.
	// +kubebuilder:validation:MaxItems=28
	// +listType=atomic
	// +optional
	PeerLinks []GPUPeerLink `json:"peerLinks,omitempty"`
	// peerMatrices are the GPU-to-GPU copies, per method, mode and size.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	PeerMatrices []CopyPeerMatrix `json:"peerMatrices,omitempty"`
	// hostAggregate is every GPU with the host at once, per direction.
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	// +optional
	HostAggregate []CopyHostAggregate `json:"hostAggregate,omitempty"`
	// local are the figures each GPU measured by itself (spec.gpuCopy.localTests, latency).
	// +kubebuilder:validation:MaxItems=128
	// +listType=atomic
	// +optional
	Local []CopyLocalFigure `json:"local,omitempty"`
	// localNote says what of the local figures was not measured.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	LocalNote string `json:"localNote,omitempty"`
	// peerNote says what of the GPU-to-GPU copies was not measured or not kept.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	PeerNote string `json:"peerNote,omitempty"`
}

// GPUPlacement is where a GPU sits: its NUMA node and PCIe link.
type GPUPlacement struct {
	// device is the CUDA device index in the pod.
	Device int32 `json:"device"`
	// numaNode of the GPU; -1 when the platform names none.
	NUMANode int32 `json:"numaNode"`
	// pcieGeneration of the link now; -1 unknown (not on PCIe, or no NVML).
	PCIeGeneration int32 `json:"pcieGeneration"`
	// pcieWidth (lanes) of the link now; -1 unknown.
	PCIeWidth int32 `json:"pcieWidth"`
}

// CopySize is one copy measurement.
type CopySize struct {
	// device is the CUDA device index.
	Device int32 `json:"device"`
	// direction of the copy.
	Direction CopyDirection `json:"direction"`
	// hostMemory of H2D and D2H copies; empty for D2D.
	// +optional
	HostMemory CopyHostMemory `json:"hostMemory,omitempty"`
	// bytes per copy.
	Bytes int64 `json:"bytes"`
	// timeNanoseconds per copy.
	TimeNanoseconds int64 `json:"timeNanoseconds"`
	// megabytesPerSecond (10^6 bytes per second) of bytes copied.
	MegabytesPerSecond int64 `json:"megabytesPerSecond"`
}
