package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Transport is the data path a bench measures.
// +kubebuilder:validation:Enum=RawEthernet;RoCE;TCP;UDP;NCCL;GPUCopy
type Transport string

const (
	// TransportRawEthernet sends raw Ethernet frames through DPDK, TX on one port and RX on the other.
	TransportRawEthernet Transport = "RawEthernet"
	// TransportRoCE moves messages over RDMA reliable-connected queue pairs (ibverbs).
	TransportRoCE Transport = "RoCE"
	// TransportTCP streams over TCP sockets, one connection per pair.
	TransportTCP Transport = "TCP"
	// TransportUDP sends datagrams over UDP sockets, one socket per pair.
	TransportUDP Transport = "UDP"
	// TransportNCCL measures an NCCL collective between GPUs, one rank per GPU, as nccl-tests does.
	TransportNCCL Transport = "NCCL"
	// TransportGPUCopy measures host<->device copy bandwidth of each GPU of a node.
	TransportGPUCopy Transport = "GPUCopy"
)

// SpiralBenchSpec describes one benchmark: what to measure (transport, matrix, workload),
// where (topology), how long (run), how to judge it (acceptance) and where results go.
//
// An acceptance metric the bench never measures would fail (or pass) for no reason the bench
// could change: the rules per kind, mode and preset are generated (SpiralBenchSpecRules).
type SpiralBenchSpec struct {
	// SpiralBenchSpecRules carries the generated rules (zz_generated_admission.go, from
	// hack/gen-admission): those that depend on the bench kinds, the 512-cell bound and those
	// of spiralbench_rules.yaml, too long for a marker line. It has no fields.
	SpiralBenchSpecRules `json:",inline"`

	// transport is the data path to measure: RawEthernet (DPDK, both ports in one pod),
	// RoCE (ibverbs RC), TCP or UDP sockets, NCCL collectives between GPUs, or GPUCopy
	// (host<->device copies of each GPU).
	// +required
	Transport Transport `json:"transport"`

	// roce holds RDMA options; only for transport RoCE.
	// +optional
	RoCE *RoCESpec `json:"roce,omitempty"`

	// rawEthernet holds DPDK options; only for transport RawEthernet.
	// +optional
	RawEthernet *RawEthernetSpec `json:"rawEthernet,omitempty"`

	// socket holds TCP/UDP socket options; only for transports TCP and UDP.
	// +optional
	Socket *SocketSpec `json:"socket,omitempty"`

	// nccl holds the collective, its size sweep and network; only for transport NCCL.
	// +optional
	NCCL *NCCLSpec `json:"nccl,omitempty"`

	// gpuCopy holds the copy directions and sizes; only for transport GPUCopy.
	// +optional
	GPUCopy *GPUCopySpec `json:"gpuCopy,omitempty"`

	// topology says where the two sides run: the two cabled ports of one node (Loopback)
	// or a server node and a client node (CrossNode), with their networks, devices and cores.
	// +kubebuilder:default={}
	// +optional
	Topology TopologySpec `json:"topology,omitempty"`

	// matrix is the sweep: every combination of its lists is one cell, run in order.
	// Empty lists are filled from the preset for the chosen transport.
	// +kubebuilder:default={}
	// +optional
	Matrix MatrixSpec `json:"matrix,omitempty"`

	// workload is the optional GPU computation run on the received data.
	// +optional
	Workload *WorkloadSpec `json:"workload,omitempty"`

	// run sets the duration, warm-up, repeats, deadline and retries of each cell.
	// +kubebuilder:default={}
	// +optional
	Run RunSpec `json:"run,omitempty"`

	// acceptance turns the results into the Passed condition.
	// +optional
	Acceptance *AcceptanceSpec `json:"acceptance,omitempty"`

	// results names an S3-compatible bucket the results are uploaded to.
	// +optional
	Results *ResultsSpec `json:"results,omitempty"`

	// image is the data plane container image. Empty uses the operator's default.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Image string `json:"image,omitempty"`

	// imagePullSecrets are used to pull image.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// priorityClassName is given to every pod of the bench.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// suspend stops the creation of new cell pods; a running cell finishes. Setting it back
	// to false resumes the sweep where it stopped. It may change at any time.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// ttlSecondsAfterFinished deletes the SpiralBench this many seconds after it completed or
	// failed. Unset keeps it.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// SpiralBench is a network loopback benchmark on GPU nodes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sb,categories=spiral
// +kubebuilder:printcolumn:name="Transport",type=string,JSONPath=`.spec.transport`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Cells",type=string,JSONPath=`.status.cellsSummary`
// +kubebuilder:printcolumn:name="Headline Mbit/s",type=integer,JSONPath=`.status.cellResults[?(@.headline==true)].rxMbps.mean`
// +kubebuilder:printcolumn:name="Passed",type=string,JSONPath=`.status.conditions[?(@.type=="Passed")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.cells.failed`,priority=1
// +kubebuilder:printcolumn:name="Invalid",type=integer,JSONPath=`.status.cells.invalid`,priority=1
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.status.conditions[?(@.type=="Passed")].reason`,priority=1
// +kubebuilder:printcolumn:name="Best Mbit/s",type=integer,JSONPath=`.status.bestRxMbps`,priority=1
// +kubebuilder:printcolumn:name="Headline bound by",type=string,JSONPath=`.status.cellResults[?(@.headline==true)].boundBy`,priority=1
// +kubebuilder:printcolumn:name="Nodes",type=string,JSONPath=`.status.nodesText`,priority=1
// +kubebuilder:printcolumn:name="Run",type=string,JSONPath=`.status.artifacts.runID`,priority=1
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 40",message="metadata.name must be at most 40 characters, so that the pod names derived from it stay valid"
type SpiralBench struct {
	metav1.TypeMeta `json:",inline"`
	// SpiralBenchRules carries the generated rules (zz_generated_admission.go, from
	// hack/gen-admission): what a started bench may not change, the kinds that need GPUs and
	// those of spiralbench_rules.yaml, too long for a marker line. It has no fields.
	SpiralBenchRules `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the benchmark.
	// +required
	Spec SpiralBenchSpec `json:"spec"`

	// status reports the plan, the progress and the results.
	// +optional
	Status SpiralBenchStatus `json:"status,omitempty"`
}

// SpiralBenchList is a list of SpiralBench objects.
//
// +kubebuilder:object:root=true
type SpiralBenchList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SpiralBench `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SpiralBench{}, &SpiralBenchList{})
}
