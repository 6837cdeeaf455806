package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// TopologyMode says whether both sides share one node or run on two.
// +kubebuilder:validation:Enum=Loopback;CrossNode
type TopologyMode string

const (
	// TopologyLoopback runs both sides on one node, across its two cabled ports.
	TopologyLoopback TopologyMode = "Loopback"
	// TopologyCrossNode runs the server on one node and the client on another.
	TopologyCrossNode TopologyMode = "CrossNode"
)

// TopologySpec places the two sides of a bench. The server is the receiver and the client
// the sender; for RawEthernet, whose single pod holds both ports, the server describes the RX
// port and the client the TX port.
//
// The placement rules are on SpiralBench (spiralbench_types.go), not here: a fleet's template is
// a TopologySpec too, and there the fleet chooses the nodes.
type TopologySpec struct {
	// TopologySpecRules carries the rules too long for a marker line (topology_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	TopologySpecRules `json:",inline"`

	// links spreads each cell's pairs over several links at once (TCP and UDP): pair i runs on
	// link i % links, link k on the k-th entry of server.networks and of client.networks. The
	// cell's figures are the sum; repeatResults[].wire.links has one row per link. Pairs fewer
	// than links leave links idle.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=8
	// +optional
	Links int32 `json:"links,omitempty"`

	// mode is Loopback (one node, its two cabled ports) or CrossNode (two nodes).
	// +kubebuilder:default=Loopback
	// +optional
	Mode TopologyMode `json:"mode,omitempty"`

	// mtu of the measured path in bytes; it bounds UDP and raw payloads (mtu - 28).
	// +kubebuilder:default=9000
	// +kubebuilder:validation:Minimum=576
	// +kubebuilder:validation:Maximum=9216
	// +optional
	MTU int32 `json:"mtu,omitempty"`

	// coreSharing says whether the core maps may put two busy-polling threads (pollers,
	// workers, or a master beside them) on one core: Exclusive (default) refuses such a map,
	// Shared accepts it and records a warning event, since shared cores lower the numbers.
	// +kubebuilder:default=Exclusive
	// +optional
	CoreSharing CoreSharing `json:"coreSharing,omitempty"`

	// placement selects the node of a Loopback bench.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// server is the receiving side (the RX port for RawEthernet).
	// +kubebuilder:default={}
	// +optional
	Server SideSpec `json:"server,omitempty"`

	// client is the sending side (the TX port for RawEthernet).
	// +kubebuilder:default={}
	// +optional
	Client SideSpec `json:"client,omitempty"`
}

// CoreSharing says whether busy-polling threads may share a core.
// +kubebuilder:validation:Enum=Exclusive;Shared
type CoreSharing string

const (
	// CoreSharingExclusive gives every busy-polling thread a core of its own.
	CoreSharingExclusive CoreSharing = "Exclusive"
	// CoreSharingShared allows core maps that put busy-polling threads on one core.
	CoreSharingShared CoreSharing = "Shared"
)

// Placement selects a node.
type Placement struct {
	// PlacementRules carries the rules too long for a marker line (topology_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	PlacementRules `json:",inline"`

	// nodeName pins the pod to this node, bypassing the scheduler.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// nodeSelector restricts the pod to nodes with these labels.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations let the pod run on tainted (for example GPU-dedicated) nodes.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// affinity constrains the node further.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
}

// SideSpec describes what one side's pod gets: networks, devices, hugepages, GPUs and cores.
type SideSpec struct {
	// SideSpecRules carries the rules too long for a marker line (topology_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SideSpecRules `json:",inline"`

	// placement selects this side's node; only with topology.mode CrossNode.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// hostNetwork runs the pod in the node's network namespace.
	// +optional
	HostNetwork bool `json:"hostNetwork,omitempty"`

	// networks are Multus secondary networks (NetworkAttachmentDefinitions) attached to the pod.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	Networks []NetworkAttachment `json:"networks,omitempty"`

	// address is the IP the data plane binds (server) or connects to (client). Empty uses the
	// first secondary network's address, or the server pod's IP.
	// +kubebuilder:validation:MaxLength=45
	// +optional
	Address string `json:"address,omitempty"`

	// devices are extended resources requested by name: SR-IOV VFs, host devices, RDMA devices.
	// +kubebuilder:validation:MaxItems=8
	// +listType=map
	// +listMapKey=resourceName
	// +optional
	Devices []DeviceResource `json:"devices,omitempty"`

	// hugepages for DPDK packet buffers.
	// +optional
	Hugepages *HugepagesSpec `json:"hugepages,omitempty"`

	// gpus is the number of nvidia.com/gpu to request.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=8
	// +optional
	GPUs int32 `json:"gpus,omitempty"`

	// cores pins this side's threads to CPU cores.
	// +optional
	Cores *CoreMap `json:"cores,omitempty"`

	// privileged runs the container privileged. By default it gets only IPC_LOCK, NET_RAW,
	// NET_ADMIN and SYS_NICE.
	// +optional
	Privileged bool `json:"privileged,omitempty"`
}

// NetworkAttachment references a Multus NetworkAttachmentDefinition.
type NetworkAttachment struct {
	// name of the NetworkAttachmentDefinition.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// namespace of the NetworkAttachmentDefinition; empty means the bench's namespace.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// interface is the name of the interface inside the pod (for example net1).
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]{1,15}$`
	// +optional
	Interface string `json:"interface,omitempty"`
}

// DeviceResource is an extended resource by name and count.
type DeviceResource struct {
	// resourceName as the device plugin advertises it, for example
	// nvidia.com/cx7_vf, rdma/rdma_shared_device_a or openshift.io/mlnx_p0.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$`
	// +kubebuilder:validation:MaxLength=253
	// +required
	ResourceName string `json:"resourceName"`

	// count to request.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Count int32 `json:"count,omitempty"`
}

// HugepageSize is a huge page size the kubelet exposes.
// +kubebuilder:validation:Enum="2Mi";"1Gi"
type HugepageSize string

// HugepagesSpec requests huge pages and mounts them.
//
// +kubebuilder:validation:XValidation:rule="type(self.mebibytes) != int || self.pageSize != '2Mi' || self.mebibytes % 2 == 0",message="hugepages.mebibytes must be even with 2Mi pages"
type HugepagesSpec struct {
	// HugepagesSpecRules carries the rules too long for a marker line (topology_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	HugepagesSpecRules `json:",inline"`

	// pageSize is 2Mi or 1Gi.
	// +kubebuilder:default="2Mi"
	// +optional
	PageSize HugepageSize `json:"pageSize,omitempty"`

	// mebibytes of huge pages to request: a whole number of MiB (2048, not 2Gi).
	// The schema takes strings too, only so that a quantity gets a message saying so.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Type=""
	// +kubebuilder:validation:XValidation:rule="type(self) == int",message="hugepages.mebibytes is a whole number of MiB, not a quantity: write 2048 for 2Gi, 512 for 512Mi"
	// +kubebuilder:validation:XValidation:rule="type(self) != int || (self >= 2 && self <= 1048576)",message="hugepages.mebibytes must be from 2 to 1048576 MiB"
	// +required
	Mebibytes int32 `json:"mebibytes"`
}

// CoreMap pins threads to CPU cores, as DAQIRI's core map does: a master (orchestration)
// core, one poll-mode core per queue or pair, and optionally a worker core per queue.
// On the client the pollers are TX pollers, on the server RX pollers. Queue or pair i uses
// list[i mod len]; an empty list leaves those threads unpinned.
type CoreMap struct {
	// master is the orchestration core; unset leaves it unpinned.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4095
	// +optional
	Master *int32 `json:"master,omitempty"`

	// pollers are the busy-polling cores, one per queue (raw) or pair (sockets).
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=4095
	// +listType=atomic
	// +optional
	Pollers []int32 `json:"pollers,omitempty"`

	// workers are the application worker cores, one per queue.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=4095
	// +listType=atomic
	// +optional
	Workers []int32 `json:"workers,omitempty"`
}
