package v1alpha1

// CopyPeerMethod is how a GPU-to-GPU copy moves the bytes; None alone measures no matrices.
// +kubebuilder:validation:Enum=CE;SM;None
type CopyPeerMethod string

const (
	// CopyPeerCE copies with the copy engines: cudaMemcpyPeerAsync on a stream of the source GPU.
	CopyPeerCE CopyPeerMethod = "CE"
	// CopyPeerSM copies with a kernel on the source GPU that writes into the peer's memory
	// (needs peer access).
	CopyPeerSM CopyPeerMethod = "SM"
	// CopyPeerNone measures no GPU-to-GPU copies.
	CopyPeerNone CopyPeerMethod = "None"
)

// CopyPeerMode says whether a pair's copies run one direction alone or both at once.
// +kubebuilder:validation:Enum=Unidirectional;Bidirectional
type CopyPeerMode string

const (
	// CopyPeerUnidirectional: source to destination alone.
	CopyPeerUnidirectional CopyPeerMode = "Unidirectional"
	// CopyPeerBidirectional: source to destination while destination to source runs on the
	// other GPU's stream; each direction's rate is its own, the pair's total their sum.
	CopyPeerBidirectional CopyPeerMode = "Bidirectional"
)

// CopyAggregateDirection is a direction of the all-GPU host copies; None alone measures none.
// +kubebuilder:validation:Enum=H2D;D2H;None
type CopyAggregateDirection string

// GPUPeerLink is what connects two GPUs of the node, in nvidia-smi topo's words.
type GPUPeerLink struct {
	// deviceA is one GPU's CUDA index (the lower).
	DeviceA int32 `json:"deviceA"`
	// deviceB is the other's.
	DeviceB int32 `json:"deviceB"`
	// path is NV<n> (NVLink, n active links on deviceA), PIX, PXB, PHB, NODE, SYS (PCIe: the
	// nearest common ancestor) or unknown (NVML could not say), from NVML.
	// +kubebuilder:validation:MaxLength=16
	Path string `json:"path"`
	// peerAccess is true when CUDA lets each GPU read and write the other's memory.
	PeerAccess bool `json:"peerAccess"`
}

// CopyPeerMatrix is one GPU-to-GPU matrix at one size.
type CopyPeerMatrix struct {
	// method of the copies.
	Method CopyPeerMethod `json:"method"`
	// mode of the copies.
	Mode CopyPeerMode `json:"mode"`
	// bytes per copy.
	Bytes int64 `json:"bytes"`
	// megabytesPerSecond (10^6 bytes per second) of the bytes that reached the destination:
	// row i is the source gpus[i], column j the destination gpus[j]; -1 where not measured (the
	// diagonal, or SM without peer access).
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxItems=8
	// +listType=atomic
	MegabytesPerSecond [][]int64 `json:"megabytesPerSecond"`
}

// CopyHostAggregate is every GPU copying to or from its own pinned host buffer at once, against
// each GPU alone.
type CopyHostAggregate struct {
	// direction of the copies: H2D or D2H.
	Direction CopyDirection `json:"direction"`
	// bytes per copy.
	Bytes int64 `json:"bytes"`
	// aloneMBps is each GPU's rate by itself, in the order of gpus.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	AloneMBps []int64 `json:"aloneMBps"`
	// togetherMBps is each GPU's rate while every GPU copies.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	TogetherMBps []int64 `json:"togetherMBps"`
	// aggregateMBps is every byte over the span from the common start to the last GPU's end.
	AggregateMBps int64 `json:"aggregateMBps"`
}
