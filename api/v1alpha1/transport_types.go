package v1alpha1

// RoCEVerb is the RDMA operation that moves the data.
// +kubebuilder:validation:Enum=Send;Write;Read
type RoCEVerb string

const (
	// RoCEVerbSend is a two-sided SEND; the receiver pre-posts receives.
	RoCEVerbSend RoCEVerb = "Send"
	// RoCEVerbWrite is a one-sided RDMA WRITE with immediate so the receiver counts completions.
	RoCEVerbWrite RoCEVerb = "Write"
	// RoCEVerbRead is a one-sided RDMA READ issued by the client.
	RoCEVerbRead RoCEVerb = "Read"
)

// RoCEMode chooses between streaming bandwidth and ping-pong latency.
// +kubebuilder:validation:Enum=Bandwidth;Latency
type RoCEMode string

const (
	// RoCEModeBandwidth streams messages and reports throughput.
	RoCEModeBandwidth RoCEMode = "Bandwidth"
	// RoCEModeLatency ping-pongs one message at a time and reports percentiles.
	RoCEModeLatency RoCEMode = "Latency"
)

// MemoryKind is where packet or message buffers live.
// +kubebuilder:validation:Enum=Host;HostPinned;Device
type MemoryKind string

const (
	// MemoryHost is ordinary host memory.
	MemoryHost MemoryKind = "Host"
	// MemoryHostPinned is host memory registered with CUDA so the GPU reads it in place.
	MemoryHostPinned MemoryKind = "HostPinned"
	// MemoryDevice is GPU memory (GPUDirect); needs a capable NIC.
	MemoryDevice MemoryKind = "Device"
)

// RoCESpec holds RDMA options.
//
// +kubebuilder:validation:XValidation:rule="self.mode != 'Latency' || self.queuePairs == 1",message="roce.mode Latency ping-pongs on one queue pair: set queuePairs to 1"
type RoCESpec struct {
	// RoCESpecRules carries the rules too long for a marker line (transport_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	RoCESpecRules `json:",inline"`

	// verb moves the data: Send, Write (with immediate) or Read.
	// +kubebuilder:default=Send
	// +optional
	Verb RoCEVerb `json:"verb,omitempty"`

	// mode is Bandwidth (stream) or Latency (ping-pong percentiles).
	// +kubebuilder:default=Bandwidth
	// +optional
	Mode RoCEMode `json:"mode,omitempty"`

	// queuePairs is the number of RC queue pairs per cell.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	QueuePairs int32 `json:"queuePairs,omitempty"`

	// txDepth caps the sends in flight; 0 sizes it to the message.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=8192
	// +optional
	TXDepth int32 `json:"txDepth,omitempty"`

	// rxDepth is the number of pre-posted receives; 0 sizes it to the message.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=8192
	// +optional
	RXDepth int32 `json:"rxDepth,omitempty"`

	// memory is where the registered buffers live: Host, or HostPinned (page-locked). Device
	// (GPUDirect RDMA) is refused until the data plane registers GPU memory with the NIC.
	// +kubebuilder:default=Host
	// +optional
	Memory MemoryKind `json:"memory,omitempty"`
}

// PortSource names a DPDK port: a PCI device or a virtual device.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.pciAddress) && has(self.virtualDevice))",message="set pciAddress or virtualDevice, not both"
type PortSource struct {
	// pciAddress of the port (for example 0000:01:00.0). Empty takes the address from the
	// device plugin's PCIDEVICE_* environment variable of the side's first device resource.
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`
	// +optional
	PCIAddress string `json:"pciAddress,omitempty"`

	// virtualDevice is a DPDK vdev argument for testing without a NIC, for example
	// net_af_packet0,iface=eth1 or net_memif0,role=server.
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^net_(af_packet|af_xdp|memif|ring|null|tap|pcap)[0-9]*(,[a-zA-Z0-9_=./:-]+)*$`
	// +optional
	VirtualDevice string `json:"virtualDevice,omitempty"`
}

// RawEthernetSpec holds DPDK options.
type RawEthernetSpec struct {
	// RawEthernetSpecRules carries the rules too long for a marker line (transport_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	RawEthernetSpecRules `json:",inline"`

	// memory is where the packet buffers live: Host, HostPinned (registered with CUDA) or
	// Device (GPU memory; needs a GPUDirect-capable NIC).
	// +kubebuilder:default=Host
	// +optional
	Memory MemoryKind `json:"memory,omitempty"`

	// txPort is the sending port.
	// +optional
	TXPort *PortSource `json:"txPort,omitempty"`

	// rxPort is the receiving port.
	// +optional
	RXPort *PortSource `json:"rxPort,omitempty"`

	// ringDescriptors per queue, 64 to 32768; 0 uses the data plane's default (1024).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32768
	// +kubebuilder:validation:XValidation:rule="self == 0 || self >= 64",message="rawEthernet.ringDescriptors is 0 (the default, 1024) or from 64 to 32768"
	// +optional
	RingDescriptors int32 `json:"ringDescriptors,omitempty"`

	// poolBuffers is the number of mbufs in the packet pool; 0 sizes it to the rings.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4194304
	// +optional
	PoolBuffers int32 `json:"poolBuffers,omitempty"`

	// forward turns the run into the forward mode (l2fwd-nv): a forwarder between the two
	// ports (forward_types.go); memory is then where the forwarder's mbuf pool lives.
	// +optional
	Forward *RawForwardSpec `json:"forward,omitempty"`
}

// UDPOffload selects UDP segmentation offloads.
// +kubebuilder:validation:Enum=None;GSO;GRO;GSOAndGRO
type UDPOffload string

// SocketMode chooses between streaming bandwidth and ping-pong latency on TCP and UDP.
// +kubebuilder:validation:Enum=Bandwidth;Latency
type SocketMode string

const (
	// SocketModeBandwidth streams messages (TCP) or datagrams (UDP) and reports throughput.
	SocketModeBandwidth SocketMode = "Bandwidth"
	// SocketModeLatency ping-pongs one message at a time on one socket and reports percentiles.
	SocketModeLatency SocketMode = "Latency"
)

// SocketWait is how a latency-mode side waits for the next message.
// +kubebuilder:validation:Enum=Blocking;Spin
type SocketWait string

const (
	// SocketWaitBlocking sleeps in recv() until the kernel wakes the thread.
	SocketWaitBlocking SocketWait = "Blocking"
	// SocketWaitSpin polls with non-blocking recv() and never sleeps: lower latency for a whole
	// core on each side.
	SocketWaitSpin SocketWait = "Spin"
)

// SocketSpec holds socket options.
type SocketSpec struct {
	// SocketSpecRules carries the rules too long for a marker line (transport_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	SocketSpecRules `json:",inline"`

	// mode is Bandwidth (stream) or Latency (ping-pong percentiles: min, p50, p99, p99.9, max).
	// +kubebuilder:default=Bandwidth
	// +optional
	Mode SocketMode `json:"mode,omitempty"`

	// wait is how each side of a Latency run waits for a message: Blocking (recv sleeps) or
	// Spin (non-blocking recv in a loop, a whole core per side).
	// +kubebuilder:default=Blocking
	// +optional
	Wait SocketWait `json:"wait,omitempty"`

	// busyPollMicroseconds sets SO_BUSY_POLL on a Latency run's sockets: the kernel polls the
	// device queue this long before sleeping (needs a NIC driver with busy polling); 0 leaves it off.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	BusyPollMicroseconds int32 `json:"busyPollMicroseconds,omitempty"`

	// tcpNoDelay disables Nagle's algorithm (TCP only).
	// +optional
	TCPNoDelay bool `json:"tcpNoDelay,omitempty"`

	// udpOffload turns on UDP GSO and/or GRO where the kernel has them (UDP only).
	// +kubebuilder:default=None
	// +optional
	UDPOffload UDPOffload `json:"udpOffload,omitempty"`

	// bufferBytes sets SO_SNDBUF/SO_RCVBUF; 0 uses a large default.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1073741824
	// +optional
	BufferBytes int32 `json:"bufferBytes,omitempty"`
}
