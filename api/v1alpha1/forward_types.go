package v1alpha1

// ForwardWork says who processes each accumulated burst in the RawEthernet forward mode
// (l2fwd-nv's -w): nobody (I/O forwarding), the CPU, or the GPU in one of three ways.
// +kubebuilder:validation:Enum=None;CPU;GPUKernel;GPUPersistent;GPUGraphs
type ForwardWork string

const (
	// ForwardWorkNone forwards the frames as they came (I/O forwarding).
	ForwardWorkNone ForwardWork = "None"
	// ForwardWorkCPU has the pipeline's RX core swap each frame's source and destination MAC.
	ForwardWorkCPU ForwardWork = "CPU"
	// ForwardWorkGPUKernel launches one CUDA kernel per accumulated burst.
	ForwardWorkGPUKernel ForwardWork = "GPUKernel"
	// ForwardWorkGPUPersistent runs one persistent kernel per pipeline, signalled through
	// flags in mapped host memory.
	ForwardWorkGPUPersistent ForwardWork = "GPUPersistent"
	// ForwardWorkGPUGraphs launches a CUDA graph holding the work of the next 8 bursts.
	ForwardWorkGPUGraphs ForwardWork = "GPUGraphs"
)

// RawForwardSpec turns a RawEthernet run into the forward mode (l2fwd-nv): frames leave
// rawEthernet.txPort, enter the forwarder at rxPort, are processed in bursts of the cell's batch
// and leave at txPort for rawEthernet.rxPort, where every frame is counted by sequence number.
// Each pipeline is one RX queue and one TX queue on cores of their own; the cell's queues are
// (pipelines, pipelines).
type RawForwardSpec struct {
	// RawForwardSpecRules carries the rules too long for a marker line (forward_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	RawForwardSpecRules `json:",inline"`

	// rxPort is the forwarder's receiving port, the peer of rawEthernet.txPort.
	// +required
	RXPort PortSource `json:"rxPort"`

	// txPort is the forwarder's sending port, the peer of rawEthernet.rxPort.
	// +required
	TXPort PortSource `json:"txPort"`

	// pipelines, each one RX core and one TX core sharing the forwarder's one mbuf pool.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +kubebuilder:default=1
	// +optional
	Pipelines int32 `json:"pipelines,omitempty"`

	// work is the work mode of every cell; matrix.forwardWorks sweeps several instead.
	// +kubebuilder:default=None
	// +optional
	Work ForwardWork `json:"work,omitempty"`

	// workNanoseconds is a forced work time per packet (l2fwd-nv's -t) modelling heavier work;
	// 0 is none.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	WorkNanoseconds int32 `json:"workNanoseconds,omitempty"`

	// bufferSplit would put each frame's header in a host mbuf and its payload in a
	// GPU-accessible one; refused for now (see the rule above).
	// +optional
	BufferSplit bool `json:"bufferSplit,omitempty"`
}

// IsGPU reports whether the work runs on the GPU.
func (w ForwardWork) IsGPU() bool {
	return w == ForwardWorkGPUKernel || w == ForwardWorkGPUPersistent || w == ForwardWorkGPUGraphs
}
