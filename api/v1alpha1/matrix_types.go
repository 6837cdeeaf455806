package v1alpha1

// TargetRateScope says whether a target rate is each pair's or all pairs' together.
// +kubebuilder:validation:Enum=PerPair;Total
type TargetRateScope string

const (
	// TargetRatePerPair gives every pair's sender the whole target, as DAQIRI does.
	TargetRatePerPair TargetRateScope = "PerPair"
	// TargetRateTotal splits the target evenly across the pairs.
	TargetRateTotal TargetRateScope = "Total"
)

// Preset names one of DAQIRI's matrices; it fills the matrix lists left empty.
// +kubebuilder:validation:Enum=Smoke;Sweep;QueueScaling;DropCurve;ForwardPacketSize;ForwardBurst;NoDropRate
type Preset string

const (
	// PresetSmoke is the transport's headline cell alone.
	PresetSmoke Preset = "Smoke"
	// PresetSweep is DAQIRI's full matrix for the transport: raw payload x batch, RoCE message
	// sizes, TCP/UDP message size x pairs.
	PresetSweep Preset = "Sweep"
	// PresetQueueScaling is the raw (TX,RX) queue matrix x payload at the headline batch.
	PresetQueueScaling Preset = "QueueScaling"
	// PresetDropCurve is the headline cell at target rates 1, 5, 10, 25, 50, 75, 100 Gb/s and unpaced.
	PresetDropCurve Preset = "DropCurve"
	// PresetForwardPacketSize is l2fwd-nv's first table (RawEthernet forward mode): payloads
	// 64, 128, 256, 512 and 1024 bytes, forwarder pool in Host and in HostPinned memory.
	PresetForwardPacketSize Preset = "ForwardPacketSize"
	// PresetForwardBurst is l2fwd-nv's second table (RawEthernet forward mode): bursts of 16,
	// 32, 64 and 128 packets of 1024 bytes for work GPUKernel, GPUPersistent and GPUGraphs, in
	// HostPinned memory.
	PresetForwardBurst Preset = "ForwardBurst"
	// PresetNoDropRate is DAQIRI's payload matrix of the transport (raw: 8000, 4096, 1024, 256
	// and 64 bytes; UDP: 8000 and 1000) at the headline batch and pairs, each cell a no-drop-rate
	// search: it needs run.search (UDP and RawEthernet).
	PresetNoDropRate Preset = "NoDropRate"
)

// QueueCell is a number of TX queues and RX queues, each served by its own poll-mode core.
type QueueCell struct {
	// tx is the number of transmit queues.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +required
	TX int32 `json:"tx"`

	// rx is the number of receive queues.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +required
	RX int32 `json:"rx"`
}

// MatrixSpec is the sweep. Every combination of its lists is a cell; cells run in the order
// payload, batch, pairs, queues, target rate, workload, workload batch (the last varies
// fastest). A list left empty takes the preset's values for the transport.
type MatrixSpec struct {
	// preset fills the lists left empty.
	// +kubebuilder:default=Smoke
	// +optional
	Preset Preset `json:"preset,omitempty"`

	// payloadBytes are the payload (raw, UDP), message (RoCE) or send (TCP) sizes.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:Minimum=64
	// +kubebuilder:validation:items:Maximum=16777216
	// +listType=set
	// +optional
	PayloadBytes []int32 `json:"payloadBytes,omitempty"`

	// batches are packets per burst (RawEthernet only; 1 elsewhere).
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=32768
	// +listType=set
	// +optional
	Batches []int32 `json:"batches,omitempty"`

	// pairs are numbers of client/server socket pairs (TCP and UDP only).
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=64
	// +listType=set
	// +optional
	Pairs []int32 `json:"pairs,omitempty"`

	// queues are (TX,RX) queue cells (RawEthernet only).
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Queues []QueueCell `json:"queues,omitempty"`

	// targetRatesMbps are sender rates in Mb/s for drop curves; 0 is unpaced (every transport;
	// RoCE in Bandwidth mode; targetRateScope says whether each pair's sender or all pairs get it).
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=800000
	// +listType=set
	// +optional
	TargetRatesMbps []int32 `json:"targetRatesMbps,omitempty"`

	// targetRateScope says who a target rate paces: PerPair (each pair's sender gets the whole
	// target, so 4 pairs may reach 4x it, as DAQIRI's --target-gbps) or Total (the target is
	// split evenly across the pairs).
	// +kubebuilder:default=PerPair
	// +optional
	TargetRateScope TargetRateScope `json:"targetRateScope,omitempty"`

	// workloads are GPU workload kinds to sweep (DAQIRI's none/fft/gemm/gemm_fp16 rows); empty
	// takes spec.workload.kind. The settings of spec.workload apply to every kind.
	// +kubebuilder:validation:MaxItems=4
	// +listType=set
	// +optional
	Workloads []WorkloadKind `json:"workloads,omitempty"`

	// workloadBatchBytes are GPU working-set sizes to sweep (DAQIRI's workload batch sweep);
	// empty takes spec.workload.batchBytes.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=1073741824
	// +listType=set
	// +optional
	WorkloadBatchBytes []int32 `json:"workloadBatchBytes,omitempty"`

	// forwardWorks are the forward mode's work modes to sweep (RawEthernet with
	// rawEthernet.forward only); empty takes rawEthernet.forward.work or the preset's.
	// +kubebuilder:validation:MaxItems=5
	// +listType=set
	// +optional
	ForwardWorks []ForwardWork `json:"forwardWorks,omitempty"`

	// memories are where the forwarder's mbuf pool lives, to sweep (RawEthernet forward mode
	// only); empty takes rawEthernet.memory or the preset's.
	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	// +optional
	Memories []MemoryKind `json:"memories,omitempty"`
}
