package v1alpha1

// CopyLocalTest is an SM pass over a GPU's own memory: SMRead loads only, SMWrite stores only.
// +kubebuilder:validation:Enum=SMRead;SMWrite
type CopyLocalTest string

const (
	CopyLocalSMRead  CopyLocalTest = "SMRead"
	CopyLocalSMWrite CopyLocalTest = "SMWrite"
)

// CopyLatencyTarget is the memory a pointer chase runs over: the GPU's own (Device), pinned
// host memory (Host, nvbandwidth's host_device_latency_sm) or each other GPU's (Peer,
// device_to_device_latency_sm).
// +kubebuilder:validation:Enum=Device;Host;Peer
type CopyLatencyTarget string

const (
	CopyLatencyDevice CopyLatencyTarget = "Device"
	CopyLatencyHost   CopyLatencyTarget = "Host"
	CopyLatencyPeer   CopyLatencyTarget = "Peer"
)

// GPUCopyLocalSpec holds what each GPU measures by itself, after the copies; GPUCopySpec
// embeds it. Nothing of it runs unless localTests or latency names something.
type GPUCopyLocalSpec struct {
	// localTests are SM passes over each GPU's own memory (GB/s of localBytes per pass).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	LocalTests []CopyLocalTest `json:"localTests,omitempty"`

	// latency: pointer chases (ns per dependent load over a 2 MiB buffer, nvbandwidth's) from
	// each GPU over the memory named. Peer needs topology.server.gpus of 2 or more.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	// +optional
	Latency []CopyLatencyTarget `json:"latency,omitempty"`

	// localBytes per SM pass, a multiple of 16 (16-byte vectors).
	// +kubebuilder:default=536870912
	// +kubebuilder:validation:Minimum=16
	// +kubebuilder:validation:Maximum=17179869184
	// +optional
	LocalBytes int64 `json:"localBytes,omitempty"`

	// localRepeats: each local figure is measured this many times; the figure is the median, and
	// with 2 or more its coefficient of variation across repeats is reported beside it.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	LocalRepeats int32 `json:"localRepeats,omitempty"`
}

// CopyLocalFigure is one figure a GPU measured by itself.
type CopyLocalFigure struct {
	// device is the CUDA device index that ran the test.
	Device int32 `json:"device"`
	// test: SMRead, SMWrite (unit GB/s) or LatencyDevice, LatencyHost, LatencyPeer (unit ns).
	// +kubebuilder:validation:MaxLength=16
	Test string `json:"test"`
	// peer is the GPU whose memory LatencyPeer read; -1 otherwise.
	Peer int32 `json:"peer"`
	// milliValue is the median over repeats, in thousandths of the unit (MB/s, ps).
	MilliValue int64 `json:"milliValue"`
	// cvMilliPercent is the coefficient of variation over repeats, in thousandths of a percent;
	// 0 with one repeat.
	CVMilliPercent int64 `json:"cvMilliPercent"`
	// repeats measured.
	Repeats int32 `json:"repeats"`
}
