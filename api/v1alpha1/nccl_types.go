package v1alpha1

// NCCLOperation is the collective (or point-to-point) operation an NCCL bench measures, as
// nccl-tests names its binaries.
// +kubebuilder:validation:Enum=SendRecv;AllGather;AllReduce;Broadcast;Reduce;ReduceScatter;AllToAll;AllToAllv
type NCCLOperation string

const (
	// NCCLSendRecv: every rank sends to the next and receives from the previous (sendrecv_perf).
	NCCLSendRecv NCCLOperation = "SendRecv"
	// NCCLAllGather gathers every rank's slice on every rank (all_gather_perf).
	NCCLAllGather NCCLOperation = "AllGather"
	// NCCLAllReduce reduces every rank's buffer onto every rank (all_reduce_perf).
	NCCLAllReduce NCCLOperation = "AllReduce"
	// NCCLBroadcast copies the root's buffer to every rank (broadcast_perf).
	NCCLBroadcast NCCLOperation = "Broadcast"
	// NCCLReduce reduces every rank's buffer onto the root (reduce_perf).
	NCCLReduce NCCLOperation = "Reduce"
	// NCCLReduceScatter reduces and leaves each rank its slice (reduce_scatter_perf).
	NCCLReduceScatter NCCLOperation = "ReduceScatter"
	// NCCLAllToAll sends a slice from every rank to every rank (alltoall_perf).
	NCCLAllToAll NCCLOperation = "AllToAll"
	// NCCLAllToAllv sends a different amount from every rank to every rank, as spec.nccl.allToAllv
	// says (alltoallv_perf, nccl-tests 2.19).
	NCCLAllToAllv NCCLOperation = "AllToAllv"
)

// NCCLAllToAllvSpec is the traffic of operation AllToAllv: generated, weighted by distance in
// rank space (spreadPercent), or an explicit traffic matrix. Per-peer amounts round down to 16
// bytes, as nccl-tests does.
//
// +kubebuilder:validation:XValidation:rule="!has(self.trafficMatrix) || !has(self.spreadPercent)",message="nccl.allToAllv: a traffic matrix has no spread: remove spreadPercent or trafficMatrix"
// +kubebuilder:validation:XValidation:rule="!has(self.trafficMatrix) || self.trafficMatrix.all(r, size(r) == size(self.trafficMatrix))",message="nccl.allToAllv.trafficMatrix must be square: one row per rank, each with one byte count per rank"
type NCCLAllToAllvSpec struct {
	// spreadPercent of the generated traffic (nccl-tests' NCCL_TESTS_ALLTOALLV_SPREAD x 100):
	// 0 sends every peer the same, 100 (the default) sends each peer in proportion to its
	// distance (peer - rank mod ranks), nothing to itself; every rank sends and receives the size.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	SpreadPercent *int32 `json:"spreadPercent,omitempty"`

	// trafficMatrix: row i, column j is the bytes rank i sends rank j (nccl-tests'
	// NCCL_TESTS_ALLTOALLV_MATRIX_FILE); at least one row per rank of the cell (a larger matrix's
	// first rows and columns are used). It fixes the size: minBytes must equal maxBytes, at least
	// the largest rank's total.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxItems=64
	// +optional
	TrafficMatrix [][]int64 `json:"trafficMatrix,omitempty"`
}

// NCCLDataType is the element type (nccl-tests' -d).
// +kubebuilder:validation:Enum=Int8;Uint8;Int32;Uint32;Int64;Uint64;Float16;Float32;Float64;BFloat16
type NCCLDataType string

// NCCLReduceOp is the reduction of AllReduce, Reduce and ReduceScatter (nccl-tests' -o).
// +kubebuilder:validation:Enum=Sum;Prod;Max;Min;Avg
type NCCLReduceOp string

// NCCLPlacement says whether results go to a separate buffer, the input's, or both are measured.
// +kubebuilder:validation:Enum=Both;OutOfPlace;InPlace
type NCCLPlacement string

// NCCLBlocking is what follows every operation (nccl-tests' -z).
// +kubebuilder:validation:Enum=None;WaitAndBarrier;Wait;WaitUntimedBarrier
type NCCLBlocking string

// NCCLRegistration is how the send and receive buffers are registered with NCCL (nccl-tests' -R).
// +kubebuilder:validation:Enum=None;Local;Symmetric
type NCCLRegistration string

// NCCLNetwork is the network NCCL may use between nodes.
// +kubebuilder:validation:Enum=Auto;RDMA;Socket
type NCCLNetwork string

const (
	// NCCLNetworkAuto lets NCCL choose.
	NCCLNetworkAuto NCCLNetwork = "Auto"
	// NCCLNetworkRDMA limits NCCL to the pods' RDMA devices (NCCL_IB_HCA) and makes a cell in
	// which NCCL connected ranks over TCP sockets Invalid.
	NCCLNetworkRDMA NCCLNetwork = "RDMA"
	// NCCLNetworkSocket forbids NCCL's IB transport (NCCL_IB_DISABLE=1): TCP sockets only.
	NCCLNetworkSocket NCCLNetwork = "Socket"
)

// NCCLSpec holds the options of transport NCCL: one operation swept over message sizes, as
// nccl-tests' -b -e -f -n -w -c -d -o -r options do.
//
// +kubebuilder:validation:XValidation:rule="self.maxBytes >= self.minBytes",message="nccl.maxBytes must be at least nccl.minBytes"
// +kubebuilder:validation:XValidation:rule="!has(self.root) || self.root == 0 || self.operation in ['Broadcast', 'Reduce']",message="nccl.root applies to Broadcast and Reduce only: remove it"
type NCCLSpec struct {
	// NCCLSpecRules carries the rules too long for a marker line (nccl_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	NCCLSpecRules `json:",inline"`

	// operation to measure.
	// +kubebuilder:default=AllReduce
	// +optional
	Operation NCCLOperation `json:"operation,omitempty"`

	// minBytes is the smallest message size (nccl-tests -b).
	// +kubebuilder:default=8
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=17179869184
	// +optional
	MinBytes int64 `json:"minBytes,omitempty"`

	// maxBytes is the largest message size (nccl-tests -e); every rank's GPU holds two buffers
	// of this size.
	// +kubebuilder:default=134217728
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=17179869184
	// +optional
	MaxBytes int64 `json:"maxBytes,omitempty"`

	// stepFactor multiplies the size from one step to the next (nccl-tests -f).
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=1024
	// +optional
	StepFactor int32 `json:"stepFactor,omitempty"`

	// iterations are the timed operations per size and placement (nccl-tests -n).
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Iterations int32 `json:"iterations,omitempty"`

	// warmupIterations are untimed operations at every size before the sweep (nccl-tests -w).
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	WarmupIterations int32 `json:"warmupIterations,omitempty"`

	// checkIterations are operations per size and placement whose results are checked
	// element by element (nccl-tests -c); 0 checks nothing.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CheckIterations int32 `json:"checkIterations,omitempty"`

	// dataType of the elements (nccl-tests -d).
	// +kubebuilder:default=Float32
	// +optional
	DataType NCCLDataType `json:"dataType,omitempty"`

	// reduceOp of AllReduce, Reduce and ReduceScatter (nccl-tests -o).
	// +kubebuilder:default=Sum
	// +optional
	ReduceOp NCCLReduceOp `json:"reduceOp,omitempty"`

	// root rank of Broadcast and Reduce (nccl-tests -r).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=63
	// +optional
	Root int32 `json:"root,omitempty"`

	// placement: Both (out of place, then in place, as nccl-tests reports), OutOfPlace or InPlace.
	// +kubebuilder:default=Both
	// +optional
	Placement NCCLPlacement `json:"placement,omitempty"`

	// network between nodes: Auto (NCCL's choice), RDMA (the pods' RDMA devices only; a cell
	// NCCL ran over TCP sockets is Invalid) or Socket (TCP only).
	// +kubebuilder:default=Auto
	// +optional
	Network NCCLNetwork `json:"network,omitempty"`

	// ibHCAs names the RDMA devices NCCL may use (NCCL_IB_HCA, exact names such as
	// rocep1s0f0). Empty: every RDMA device the pod's device resources made visible.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Pattern=`^[a-zA-Z0-9_.-]{1,64}$`
	// +listType=set
	// +optional
	IBHCAs []string `json:"ibHCAs,omitempty"`

	// bootstrapTimeoutSeconds bounds the wait for every rank to arrive at rank 0; a rank that
	// has not arrived by then fails the cell, named.
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=5
	// +kubebuilder:validation:Maximum=3600
	// +optional
	BootstrapTimeoutSeconds int32 `json:"bootstrapTimeoutSeconds,omitempty"`

	// timeoutSeconds bounds every wait for the GPU (nccl-tests -T): an operation still running
	// after it aborts the communicator and fails the cell, named. 0 waits for ever.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	// +optional
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`

	// unalignElements starts both buffers this many elements past NCCL's alignment (nccl-tests
	// -u), to measure the unaligned path; 0 leaves them aligned.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1024
	// +optional
	UnalignElements int32 `json:"unalignElements,omitempty"`

	// blocking: what follows every timed operation (nccl-tests -z): None (queued back to back,
	// the default), WaitAndBarrier (-z 1: wait for it, then all ranks meet, both timed), Wait
	// (-z 2: wait, no barrier), WaitUntimedBarrier (-z 3: wait, timed; the barrier outside the
	// time). The barrier is a one-element all-reduce; with one rank there is none.
	// +kubebuilder:default=None
	// +optional
	Blocking NCCLBlocking `json:"blocking,omitempty"`

	// registration of the send and receive buffers for the whole sweep (nccl-tests -R): None,
	// Local (ncclCommRegister) or Symmetric (ncclCommWindowRegister, NCCL 2.27 or later: a cell
	// whose image has an older NCCL fails before its ranks meet, saying so).
	// +kubebuilder:default=None
	// +optional
	Registration NCCLRegistration `json:"registration,omitempty"`

	// split runs the operation in groups of ranks at once, each on a communicator of its own
	// (nccl-tests' NCCL_TESTS_SPLIT): a rank's group is its rank combined with a value, "AND 7",
	// "OR 7", "MOD 8", "DIV 8" (or & | % /; the value decimal, 0x hexadecimal or 0b binary). With
	// G GPUs a node, "MOD G" groups one GPU of every node (one rail, inter-node only) and "DIV G"
	// each node's GPUs (intra-node only). Groups of unequal size fail the cell; bandwidth counts a
	// group's ranks.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Split string `json:"split,omitempty"`

	// allToAllv is the traffic of operation AllToAllv (default: distance-weighted, spread 100).
	// +optional
	AllToAllv *NCCLAllToAllvSpec `json:"allToAllv,omitempty"`
}

// CopyDirection is a host<->device copy direction.
// +kubebuilder:validation:Enum=H2D;D2H;D2D
type CopyDirection string

// CopyHostMemory is the kind of host memory of H2D and D2H copies.
// +kubebuilder:validation:Enum=Pinned;Pageable
type CopyHostMemory string

// GPUCopySpec holds the options of transport GPUCopy: host<->device copy bandwidth per GPU of
// the node, over a size sweep (seed 001's bandwidthTest); copies between every ordered pair of
// its GPUs (nvbandwidth's device-to-device matrices); every GPU with the host at once.
//
// +kubebuilder:validation:XValidation:rule="self.maxBytes >= self.minBytes",message="gpuCopy.maxBytes must be at least gpuCopy.minBytes"
// +kubebuilder:validation:XValidation:rule="!has(self.peerMethods) || !('None' in self.peerMethods) || size(self.peerMethods) == 1",message="gpuCopy.peerMethods: None stands alone"
// +kubebuilder:validation:XValidation:rule="!has(self.aggregate) || !('None' in self.aggregate) || size(self.aggregate) == 1",message="gpuCopy.aggregate: None stands alone"
// +kubebuilder:validation:XValidation:rule="!has(self.localBytes) || self.localBytes % 16 == 0",message="gpuCopy.localBytes must be a multiple of 16: the SM passes move 16-byte vectors"
// +kubebuilder:validation:XValidation:rule="!has(self.localRepeats) || self.localRepeats == 1 || has(self.localTests) || has(self.latency)",message="gpuCopy.localRepeats measures the local figures again and nothing else: set localTests or latency, or leave localRepeats at 1"
type GPUCopySpec struct {
	// directions to measure.
	// +kubebuilder:default={H2D,D2H,D2D}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	// +optional
	Directions []CopyDirection `json:"directions,omitempty"`

	// hostMemory kinds of the H2D and D2H copies.
	// +kubebuilder:default={Pinned,Pageable}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	HostMemory []CopyHostMemory `json:"hostMemory,omitempty"`

	// minBytes is the smallest copy.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=17179869184
	// +optional
	MinBytes int64 `json:"minBytes,omitempty"`

	// maxBytes is the largest copy; each GPU holds two buffers and the host two of this size.
	// +kubebuilder:default=268435456
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=17179869184
	// +optional
	MaxBytes int64 `json:"maxBytes,omitempty"`

	// stepFactor multiplies the size from one step to the next.
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=1024
	// +optional
	StepFactor int32 `json:"stepFactor,omitempty"`

	// iterations are the timed copies per size.
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Iterations int32 `json:"iterations,omitempty"`

	// peerMethods of the GPU-to-GPU matrices over every ordered pair of the pod's GPUs: CE
	// (copy engines), SM (a copy kernel); [None] measures no matrices.
	// +kubebuilder:default={CE,SM}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	PeerMethods []CopyPeerMethod `json:"peerMethods,omitempty"`

	// peerModes of the matrices: Unidirectional, Bidirectional (both directions at once).
	// +kubebuilder:default={Unidirectional,Bidirectional}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	PeerModes []CopyPeerMode `json:"peerModes,omitempty"`

	// peerBytes are the sizes of the GPU-to-GPU copies, a set of matrices each; every GPU holds
	// two buffers of the largest.
	// +kubebuilder:default={268435456}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=17179869184
	// +listType=set
	// +optional
	PeerBytes []int64 `json:"peerBytes,omitempty"`

	// aggregate directions in which every GPU copies with the host at once (maxBytes, pinned
	// memory), against each alone; [None] measures none.
	// +kubebuilder:default={H2D,D2H}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	Aggregate []CopyAggregateDirection `json:"aggregate,omitempty"`

	// latency and SM read-only / write-only passes of each GPU alone, with repeats.
	GPUCopyLocalSpec `json:",inline"`
}

// DefinesInPlace says whether NCCL defines an in-place form of the operation: sendbuff ==
// recvbuff for Broadcast, Reduce and AllReduce, the rank's slice of recvbuff for AllGather and
// ReduceScatter (NCCL user guide, "In-place Operations"). SendRecv, AllToAll and AllToAllv have none: the
// receive overwrites data still being sent. The data plane's table says the same
// (dataplane/src/transports/nccl/collective.cpp), and the CEL rule on NCCLSpec lists the three.
func (o NCCLOperation) DefinesInPlace() bool {
	return o != NCCLSendRecv && o != NCCLAllToAll && o != NCCLAllToAllv
}

// ncclOperationNames are the operations' names in the data plane and nccl-tests
// (<name>_perf), in the enum's order.
var ncclOperationNames = map[NCCLOperation]string{
	NCCLSendRecv: "sendrecv", NCCLAllGather: "all_gather", NCCLAllReduce: "all_reduce",
	NCCLBroadcast: "broadcast", NCCLReduce: "reduce", NCCLReduceScatter: "reduce_scatter", NCCLAllToAll: "alltoall",
	NCCLAllToAllv: "alltoallv",
}

// DataplaneName is the operation's name in the data plane's flags and summary, and in
// nccl-tests' binary names (all_gather for all_gather_perf); empty (the default) is AllReduce's.
func (o NCCLOperation) DataplaneName() string {
	if o == "" {
		return ncclOperationNames[NCCLAllReduce]
	}
	return ncclOperationNames[o]
}

// NCCLOperationNamed returns the operation whose data plane name is name.
func NCCLOperationNamed(name string) (NCCLOperation, bool) {
	for o, n := range ncclOperationNames {
		if n == name {
			return o, true
		}
	}
	return "", false
}
