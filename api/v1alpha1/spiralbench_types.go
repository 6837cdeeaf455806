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
// +kubebuilder:validation:XValidation:rule="!has(self.roce) || self.transport == 'RoCE'",message="spec.roce applies to transport RoCE only: remove it or set transport: RoCE"
// +kubebuilder:validation:XValidation:rule="!has(self.rawEthernet) || self.transport == 'RawEthernet'",message="spec.rawEthernet applies to transport RawEthernet only: remove it or set transport: RawEthernet"
// +kubebuilder:validation:XValidation:rule="!has(self.topology.links) || self.topology.links == 1 || self.transport in ['TCP', 'UDP']",message="topology.links above 1 applies to TCP and UDP (RoCE and RawEthernet drive one device or port pair per cell, docs/wire.md \"Several links\"): set links to 1"
// +kubebuilder:validation:XValidation:rule="!has(self.socket) || self.transport in ['TCP', 'UDP']",message="spec.socket applies to transports TCP and UDP only: remove it"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.pairs) || size(self.matrix.pairs) == 0 || self.transport in ['TCP', 'UDP']",message="matrix.pairs (socket pairs) applies to TCP and UDP only: remove it for RawEthernet and RoCE"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.batches) || self.transport == 'RawEthernet' || self.matrix.batches.all(b, b == 1)",message="matrix.batches above 1 apply to RawEthernet only (packets per burst): use 1 or remove batches"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.queues) || size(self.matrix.queues) == 0 || self.transport == 'RawEthernet'",message="matrix.queues (TX,RX queue cells) applies to RawEthernet only: remove it"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.targetRatesMbps) || self.transport != 'RoCE' || !has(self.roce) || !has(self.roce.mode) || self.roce.mode != 'Latency' || self.matrix.targetRatesMbps.all(t, t == 0)",message="matrix.targetRatesMbps paces streams: RoCE in Latency mode has one message in flight, use 0 or remove it"
// +kubebuilder:validation:XValidation:rule="!(self.matrix.preset in ['DropCurve']) || self.transport != 'RoCE' || !has(self.roce) || !has(self.roce.mode) || self.roce.mode != 'Latency'",message="matrix.preset DropCurve needs a paced stream: RoCE in Latency mode has nothing to pace, use Mode Bandwidth"
// +kubebuilder:validation:XValidation:rule="!has(self.socket) || !(self.transport in ['TCP', 'UDP']) || !has(self.socket.mode) || self.socket.mode != 'Latency' || (has(self.matrix.pairs) && size(self.matrix.pairs) > 0 && self.matrix.pairs.all(p, p == 1))",message="socket.mode Latency ping-pongs on one socket: set matrix.pairs to [1] (the presets sweep more pairs)"
// +kubebuilder:validation:XValidation:rule="!has(self.socket) || !(self.transport in ['TCP', 'UDP']) || !has(self.socket.mode) || self.socket.mode != 'Latency' || ((!has(self.matrix.targetRatesMbps) || self.matrix.targetRatesMbps.all(t, t == 0)) && self.matrix.preset != 'DropCurve')",message="socket.mode Latency has one message in flight, nothing to pace: use matrix.targetRatesMbps 0 (or remove it) and a preset other than DropCurve"
// +kubebuilder:validation:XValidation:rule="!has(self.socket) || !(self.transport in ['TCP', 'UDP']) || !has(self.socket.mode) || self.socket.mode != 'Latency' || ((!has(self.workload) || self.workload.kind == 'None') && (!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None')))",message="socket.mode Latency echoes each message back, there is no received stream for a GPU workload: set the workload to None or use socket.mode Bandwidth"
// +kubebuilder:validation:XValidation:rule="self.matrix.preset != 'QueueScaling' || self.transport == 'RawEthernet'",message="matrix.preset QueueScaling sweeps DPDK queue cells: use it with RawEthernet only"
// +kubebuilder:validation:XValidation:rule="!(self.transport in ['UDP', 'RawEthernet']) || !has(self.matrix.payloadBytes) || self.matrix.payloadBytes.all(p, p <= self.topology.mtu - 28)",message="UDP and RawEthernet payloads must fit one frame: each of matrix.payloadBytes must be at most topology.mtu - 28 (IPv4 + UDP headers); lower the payload or raise topology.mtu"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RawEthernet' || !has(self.matrix.payloadBytes) || self.matrix.payloadBytes.all(p, p <= 8972)",message="RawEthernet payloads are at most 8972 bytes whatever topology.mtu says: the data plane sends one 9000-byte frame at most (9000 - 20 IPv4 - 8 UDP); lower matrix.payloadBytes"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RawEthernet' || !has(self.rawEthernet) || !has(self.rawEthernet.ringDescriptors) || self.rawEthernet.ringDescriptors == 0 || (has(self.matrix.batches) && size(self.matrix.batches) > 0 ? self.matrix.batches.all(b, b <= self.rawEthernet.ringDescriptors) : self.rawEthernet.ringDescriptors >= 10240)",message="rawEthernet.ringDescriptors must hold a whole burst: every batch (matrix.batches, or the preset's 10240 when it is empty) must be at most ringDescriptors; raise ringDescriptors or lower the batches"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RawEthernet' || self.topology.mode == 'Loopback'",message="RawEthernet runs in one pod holding both ports: set topology.mode to Loopback"
// +kubebuilder:validation:XValidation:rule="!has(self.topology.client.cores) || !has(self.topology.client.cores.pollers) || size(self.topology.client.cores.pollers) == 0 || !has(self.matrix.queues) || self.matrix.queues.all(q, q.tx <= size(self.topology.client.cores.pollers))",message="each matrix.queues[].tx needs a TX poller core: list at least that many topology.client.cores.pollers, or leave pollers empty (unpinned)"
// +kubebuilder:validation:XValidation:rule="!has(self.topology.server.cores) || !has(self.topology.server.cores.pollers) || size(self.topology.server.cores.pollers) == 0 || !has(self.matrix.queues) || self.matrix.queues.all(q, q.rx <= size(self.topology.server.cores.pollers))",message="each matrix.queues[].rx needs an RX poller core: list at least that many topology.server.cores.pollers, or leave pollers empty (unpinned)"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.workloadBatchBytes) || self.matrix.workloadBatchBytes.all(b, b == 0) || self.transport in ['NCCL', 'GPUCopy'] || (self.transport in ['TCP', 'UDP'] && has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency') || (self.transport == 'RoCE' && has(self.roce) && (self.roce.verb == 'Read' || self.roce.mode == 'Latency')) || (has(self.rawEthernet) && has(self.rawEthernet.forward)) || (has(self.matrix.workloads) ? self.matrix.workloads.exists(w, w != 'None') : (has(self.workload) && self.workload.kind != 'None'))",message="matrix.workloadBatchBytes sizes the GPU working set: set a workload kind other than None (spec.workload.kind or matrix.workloads)"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.workloadBatchBytes) || self.matrix.workloadBatchBytes.all(b, b == 0) || !((has(self.socket) && self.transport in ['TCP', 'UDP'] && has(self.socket.mode) && self.socket.mode == 'Latency') || (self.transport == 'RoCE' && has(self.roce) && (self.roce.verb == 'Read' || self.roce.mode == 'Latency')) || (self.transport == 'RawEthernet' && has(self.rawEthernet) && has(self.rawEthernet.forward)))",message="matrix.workloadBatchBytes sizes a GPU workload on received data, which socket.mode Latency, roce.verb Read, roce.mode Latency and the RawEthernet forward mode do not run: remove matrix.workloadBatchBytes"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RawEthernet' || !has(self.rawEthernet) || self.rawEthernet.memory != 'Device' || ((!has(self.workload) || self.workload.kind == 'None') && (!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None')))",message="a RawEthernet GPU workload reads the frames from rawEthernet.memory HostPinned (in place) or Host (staged copy); Device (mbuf data in GPU memory through DPDK gpudev) is not supported by the data plane: set rawEthernet.memory to HostPinned"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RoCE' || !has(self.roce) || (self.roce.verb != 'Read' && self.roce.mode != 'Latency') || ((!has(self.workload) || self.workload.kind == 'None') && (!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None')))",message="a RoCE GPU workload runs on what the server receives: use roce.verb Send or Write in mode Bandwidth, or set the workload to None"
// +kubebuilder:validation:XValidation:rule="((!has(self.workload) || self.workload.kind == 'None') && (!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None'))) || self.transport in ['NCCL', 'GPUCopy'] || (has(self.rawEthernet) && has(self.rawEthernet.forward)) || (has(self.topology.server.gpus) && self.topology.server.gpus >= 1)",message="a GPU workload runs on the receiving side: set topology.server.gpus to at least 1"
// +kubebuilder:validation:XValidation:rule="!has(self.nccl) || self.transport == 'NCCL'",message="spec.nccl applies to transport NCCL only: remove it or set transport: NCCL"
// +kubebuilder:validation:XValidation:rule="!has(self.gpuCopy) || self.transport == 'GPUCopy'",message="spec.gpuCopy applies to transport GPUCopy only: remove it or set transport: GPUCopy"
// +kubebuilder:validation:XValidation:rule="!(self.transport in ['NCCL', 'GPUCopy']) || (self.matrix.preset == 'Smoke' && (!has(self.matrix.payloadBytes) || size(self.matrix.payloadBytes) == 0) && (!has(self.matrix.batches) || size(self.matrix.batches) == 0) && (!has(self.matrix.pairs) || size(self.matrix.pairs) == 0) && (!has(self.matrix.targetRatesMbps) || size(self.matrix.targetRatesMbps) == 0) && (!has(self.matrix.workloads) || size(self.matrix.workloads) == 0) && (!has(self.matrix.workloadBatchBytes) || size(self.matrix.workloadBatchBytes) == 0))",message="NCCL and GPUCopy sweep their sizes themselves (nccl.minBytes..maxBytes, gpuCopy.minBytes..maxBytes): leave the matrix lists empty and matrix.preset Smoke"
// +kubebuilder:validation:XValidation:rule="!(self.transport in ['NCCL', 'GPUCopy']) || !has(self.workload) || self.workload.kind == 'None'",message="NCCL and GPUCopy run no GPU workload on received data: remove spec.workload"
// topology.server.gpus of NCCL and GPUCopy is required on the SpiralBench, a fleet's template
// and a suite step (each its own rule): a step with useAllGPUs gets it from the node.
// +kubebuilder:validation:XValidation:rule="self.transport != 'NCCL' || self.topology.mode != 'CrossNode' || (has(self.topology.client.gpus) && self.topology.client.gpus >= 1)",message="transport NCCL runs one rank per GPU: set topology.server.gpus (and topology.client.gpus with CrossNode) to at least 1"
// +kubebuilder:validation:XValidation:rule="self.transport != 'NCCL' || self.topology.mode == 'CrossNode' || !has(self.topology.client.gpus) || self.topology.client.gpus == 0",message="with topology.mode Loopback, NCCL's ranks are the topology.server.gpus GPUs of one pod: leave topology.client.gpus unset (it counts the GPUs of a CrossNode bench's second node)"
// +kubebuilder:validation:XValidation:rule="self.transport != 'NCCL' || !has(self.nccl) || !has(self.nccl.root) || !has(self.topology.server.gpus) || self.topology.server.gpus == 0 || self.nccl.root < self.topology.server.gpus + (self.topology.mode == 'CrossNode' && has(self.topology.client.gpus) ? self.topology.client.gpus : 0)",message="nccl.root must be one of the ranks: below the number of GPUs (topology.server.gpus, plus topology.client.gpus with CrossNode)"
// +kubebuilder:validation:XValidation:rule="self.transport != 'NCCL' || !has(self.nccl) || self.nccl.network != 'RDMA' || (((has(self.topology.server.devices) && size(self.topology.server.devices) > 0) || (has(self.topology.server.hostNetwork) && self.topology.server.hostNetwork)) && (self.topology.mode != 'CrossNode' || (has(self.topology.client.devices) && size(self.topology.client.devices) > 0) || (has(self.topology.client.hostNetwork) && self.topology.client.hostNetwork)))",message="nccl.network RDMA needs each pod's RDMA devices: list them in topology.server.devices (and topology.client.devices with CrossNode), or use hostNetwork"
// +kubebuilder:validation:XValidation:rule="self.transport != 'GPUCopy' || self.topology.mode == 'Loopback'",message="transport GPUCopy measures the GPUs of one node: set topology.mode Loopback and topology.server.gpus to the number of GPUs to measure"
// +kubebuilder:validation:XValidation:rule="((!has(self.matrix.forwardWorks) || size(self.matrix.forwardWorks) == 0) && (!has(self.matrix.memories) || size(self.matrix.memories) == 0) && !(self.matrix.preset in ['ForwardPacketSize', 'ForwardBurst'])) || (self.transport == 'RawEthernet' && (has(self.rawEthernet) && has(self.rawEthernet.forward)))",message="matrix.forwardWorks, matrix.memories and the presets ForwardPacketSize and ForwardBurst apply to the RawEthernet forward mode: set transport RawEthernet and rawEthernet.forward, or remove them"
// +kubebuilder:validation:XValidation:rule="!(has(self.rawEthernet) && has(self.rawEthernet.forward)) || !has(self.matrix.queues) || size(self.matrix.queues) == 0",message="the forward mode's queues are its pipelines (rawEthernet.forward.pipelines, one TX and one RX queue each): remove matrix.queues"
// +kubebuilder:validation:XValidation:rule="!(has(self.rawEthernet) && has(self.rawEthernet.forward)) || !((has(self.matrix.forwardWorks) && size(self.matrix.forwardWorks) > 0) ? self.matrix.forwardWorks.exists(w, w.startsWith('GPU')) : (self.matrix.preset == 'ForwardBurst' || (has(self.rawEthernet.forward.work) && self.rawEthernet.forward.work.startsWith('GPU')))) || (has(self.topology.server.gpus) && self.topology.server.gpus >= 1)",message="GPU forward work (GPUKernel, GPUPersistent, GPUGraphs) runs on the forwarder's node: set topology.server.gpus to at least 1"
// +kubebuilder:validation:XValidation:rule="!(has(self.rawEthernet) && has(self.rawEthernet.forward)) || !((has(self.matrix.forwardWorks) && size(self.matrix.forwardWorks) > 0) ? self.matrix.forwardWorks.exists(w, w.startsWith('GPU')) : (self.matrix.preset == 'ForwardBurst' || (has(self.rawEthernet.forward.work) && self.rawEthernet.forward.work.startsWith('GPU')))) || ((has(self.matrix.memories) && size(self.matrix.memories) > 0) ? self.matrix.memories.all(m, m == 'HostPinned') : (self.matrix.preset == 'ForwardBurst' || (self.matrix.preset != 'ForwardPacketSize' && has(self.rawEthernet.memory) && self.rawEthernet.memory == 'HostPinned')))",message="GPU forward work swaps the MACs in place in the forwarder's mbufs mapped into the GPU: its memory must be HostPinned (rawEthernet.memory, or every matrix.memories entry; the preset ForwardPacketSize also sweeps Host); Host is not mapped into the GPU and Device needs gpudev with a GPUDirect NIC"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix.memories) || !self.matrix.memories.exists(m, m == 'Device')",message="matrix.memories Device (mbuf data in GPU memory through DPDK gpudev) is not supported by the data plane: use Host or HostPinned"
// +kubebuilder:validation:XValidation:rule="self.transport != 'RawEthernet' || !has(self.rawEthernet) || !has(self.rawEthernet.memory) || self.rawEthernet.memory != 'Device'",message="rawEthernet.memory Device (mbuf data in GPU memory through DPDK gpudev) is not supported by the data plane, in the plain or the forward mode, as matrix.memories Device is not: use Host or HostPinned (HostPinned is what a GPU reads in place)"
// +kubebuilder:validation:XValidation:rule="!(has(self.rawEthernet) && has(self.rawEthernet.forward)) || ((!has(self.workload) || self.workload.kind == 'None') && (!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None')))",message="the forward mode's GPU work is rawEthernet.forward.work (or matrix.forwardWorks), not a workload on received frames: remove spec.workload and matrix.workloads"
// +kubebuilder:validation:XValidation:rule="!(has(self.rawEthernet) && has(self.rawEthernet.forward)) || ((!has(self.matrix.batches) || self.matrix.batches.all(b, b <= 1024)) && !(self.matrix.preset in ['Sweep', 'QueueScaling']))",message="the forward mode bursts at most 1024 packets (matrix.batches; l2fwd-nv measures 16..128) and sweeps with the presets Smoke, DropCurve, ForwardPacketSize or ForwardBurst, not Sweep or QueueScaling (their bursts and queue cells are the plain raw mode's)"
// +kubebuilder:validation:XValidation:rule="(has(self.matrix.payloadBytes) && size(self.matrix.payloadBytes) > 0 ? size(self.matrix.payloadBytes) : (self.matrix.preset in ['QueueScaling', 'ForwardPacketSize'] ? 5 : (self.matrix.preset in ['Sweep', 'NoDropRate'] ? (self.transport == 'UDP' ? 2 : (self.transport == 'TCP' ? 3 : 5)) : 1))) * (has(self.matrix.batches) && size(self.matrix.batches) > 0 ? size(self.matrix.batches) : (self.matrix.preset == 'ForwardBurst' || (self.matrix.preset == 'Sweep' && self.transport == 'RawEthernet') ? 4 : 1)) * (has(self.matrix.pairs) && size(self.matrix.pairs) > 0 ? size(self.matrix.pairs) : (self.matrix.preset == 'Sweep' && self.transport in ['TCP', 'UDP'] ? 3 : 1)) * (has(self.matrix.queues) && size(self.matrix.queues) > 0 ? size(self.matrix.queues) : (self.matrix.preset == 'QueueScaling' ? 4 : 1)) * (has(self.matrix.targetRatesMbps) && size(self.matrix.targetRatesMbps) > 0 ? size(self.matrix.targetRatesMbps) : (self.matrix.preset == 'DropCurve' ? 8 : 1)) * (has(self.matrix.workloads) && size(self.matrix.workloads) > 0 ? size(self.matrix.workloads) : 1) * (has(self.matrix.workloadBatchBytes) && size(self.matrix.workloadBatchBytes) > 0 ? size(self.matrix.workloadBatchBytes) : 1) * (has(self.matrix.forwardWorks) && size(self.matrix.forwardWorks) > 0 ? size(self.matrix.forwardWorks) : (self.matrix.preset == 'ForwardBurst' ? 3 : 1)) * (has(self.matrix.memories) && size(self.matrix.memories) > 0 ? size(self.matrix.memories) : (self.matrix.preset == 'ForwardPacketSize' ? 2 : 1)) <= 512",message="the matrix expands to more than 512 cells (payloads x batches x pairs x queues x target rates x workloads x workload batches x forward works x memories, a preset filling empty lists): shorten the lists or split the sweep into several SpiralBenches"
// +kubebuilder:validation:XValidation:rule="!has(self.run.search) || self.transport in ['UDP', 'RawEthernet'] || (self.transport == 'TCP' && has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency')",message="run.search (NDR/PDR search) needs a paced transport that counts every lost datagram or frame: use transport UDP or RawEthernet, or remove run.search"
// +kubebuilder:validation:XValidation:rule="!has(self.run.search) || !has(self.matrix.targetRatesMbps) || self.matrix.targetRatesMbps.all(t, t == 0)",message="run.search picks each trial's rate itself: leave matrix.targetRatesMbps empty (or 0), or remove run.search"
// +kubebuilder:validation:XValidation:rule="self.matrix.preset != 'NoDropRate' || has(self.run.search) || !(self.transport in ['UDP', 'RawEthernet']) || (has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency')",message="matrix.preset NoDropRate runs a no-drop-rate search in each cell: set run.search (for example run.search: {}) or choose another preset"
// +kubebuilder:validation:XValidation:rule="self.matrix.preset != 'NoDropRate' || self.transport in ['NCCL', 'GPUCopy'] || (self.transport in ['UDP', 'RawEthernet'] && !(has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency'))",message="matrix.preset NoDropRate searches each cell's no-drop rate, which needs a paced stream that counts every lost datagram or frame: use transport UDP (socket.mode Bandwidth) or RawEthernet, or choose another preset"
// +kubebuilder:validation:XValidation:rule="!has(self.run.search) || !(self.transport in ['TCP', 'UDP']) || !has(self.socket) || !has(self.socket.mode) || self.socket.mode != 'Latency'",message="run.search paces a stream to find its no-drop rate, and socket.mode Latency has one message in flight: remove run.search, or set socket.mode Bandwidth"
// +kubebuilder:validation:XValidation:rule="!has(self.run.search) || self.matrix.preset != 'DropCurve'",message="matrix.preset DropCurve steps the target rate by hand; run.search finds the no-drop rate itself: use preset NoDropRate or Sweep with run.search, or remove run.search"
// Every acceptance metric against what this transport, mode and preset can produce: a rule on
// a figure the bench never measures would fail (or pass) for no reason the bench could change.
// +kubebuilder:validation:XValidation:rule="!(self.transport in ['NCCL', 'GPUCopy']) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, !(r.metric in ['RxMbps', 'TxMbps', 'RxMbpsStdDev', 'PacketsPerSecond', 'Drops', 'LossPPM', 'CPUTXMilliPercent', 'CPURXMilliPercent', 'GPUSMMilliPercent', 'LatencyP50Nanoseconds', 'LatencyP99Nanoseconds', 'LatencyP999Nanoseconds', 'NDRMbps', 'NDRMbpsStdDev', 'PDRMbps']))",message="acceptance.rules check figures of a packet or message stream (throughput, drops, loss, CPU and GPU busy, latency, NDR), which transports NCCL and GPUCopy do not produce: their figures are the rows of status.cellResults[].repeatResults[].collective and .copies; remove these rules"
// +kubebuilder:validation:XValidation:rule="self.transport in ['NCCL', 'GPUCopy'] || !(self.transport in ['UDP', 'RawEthernet'] && !(has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency')) || has(self.run.search) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, !(r.metric in ['NDRMbps', 'NDRMbpsStdDev', 'PDRMbps']))",message="acceptance rules on NDRMbps, NDRMbpsStdDev or PDRMbps read what run.search finds, and this bench has no run.search: check RxMbps or LossPPM instead, or set run.search (it replaces matrix.targetRatesMbps and the preset DropCurve; PDRMbps also needs run.search.pdrTolerancePPM)"
// +kubebuilder:validation:XValidation:rule="self.transport in ['NCCL', 'GPUCopy'] || (self.transport in ['UDP', 'RawEthernet'] && !(has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency')) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, !(r.metric in ['NDRMbps', 'NDRMbpsStdDev', 'PDRMbps']))",message="acceptance rules on NDRMbps, NDRMbpsStdDev or PDRMbps read what run.search finds, which only transport UDP in socket.mode Bandwidth and RawEthernet run: check RxMbps or LossPPM instead"
// +kubebuilder:validation:XValidation:rule="!has(self.run.search) || has(self.run.search.pdrTolerancePPM) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, r.metric != 'PDRMbps')",message="an acceptance rule on PDRMbps reads the partial drop rate, which run.search finds only with run.search.pdrTolerancePPM: set pdrTolerancePPM (for example 100), or check NDRMbps instead"
// +kubebuilder:validation:XValidation:rule="self.transport in ['NCCL', 'GPUCopy'] || ((self.transport in ['TCP', 'UDP'] && has(self.socket) && has(self.socket.mode) && self.socket.mode == 'Latency') || (self.transport == 'RoCE' && has(self.roce) && has(self.roce.mode) && self.roce.mode == 'Latency')) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, !(r.metric in ['LatencyP50Nanoseconds', 'LatencyP99Nanoseconds', 'LatencyP999Nanoseconds']))",message="acceptance rules on LatencyP50Nanoseconds, LatencyP99Nanoseconds or LatencyP999Nanoseconds read a ping-pong's percentiles, which only socket.mode Latency (TCP, UDP) and roce.mode Latency measure, and this bench streams: check RxMbps, Drops or LossPPM instead, or measure latency in a SpiralBench of its own in one of those modes"
// +kubebuilder:validation:XValidation:rule="self.transport in ['NCCL', 'GPUCopy'] || ((has(self.workload) && self.workload.kind != 'None') || (has(self.matrix.workloads) && self.matrix.workloads.exists(w, w != 'None')) || (has(self.rawEthernet) && has(self.rawEthernet.forward) && ((has(self.matrix.forwardWorks) && size(self.matrix.forwardWorks) > 0) ? self.matrix.forwardWorks.exists(w, w.startsWith('GPU')) : (self.matrix.preset == 'ForwardBurst' || (has(self.rawEthernet.forward.work) && self.rawEthernet.forward.work.startsWith('GPU')))))) || !has(self.acceptance) || !has(self.acceptance.rules) || self.acceptance.rules.all(r, r.metric != 'GPUSMMilliPercent')",message="an acceptance rule on GPUSMMilliPercent reads the GPU's SM utilisation while a GPU workload (spec.workload, matrix.workloads) or GPU forward work runs, and this bench runs none: remove the rule"
type SpiralBenchSpec struct {
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
// +kubebuilder:printcolumn:name="Best Mb/s",type=integer,JSONPath=`.status.bestRxMbps`
// +kubebuilder:printcolumn:name="Passed",type=string,JSONPath=`.status.conditions[?(@.type=="Passed")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.cells.failed`,priority=1
// +kubebuilder:printcolumn:name="Invalid",type=integer,JSONPath=`.status.cells.invalid`,priority=1
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.status.conditions[?(@.type=="Passed")].reason`,priority=1
// +kubebuilder:printcolumn:name="Nodes",type=string,JSONPath=`.status.nodes`,priority=1
// +kubebuilder:printcolumn:name="Results",type=string,JSONPath=`.status.artifacts.uris[0]`,priority=1
// +kubebuilder:validation:XValidation:rule="!(has(self.spec.topology.mode) && self.spec.topology.mode == 'CrossNode') || (has(self.spec.topology.server.placement) && ((has(self.spec.topology.server.placement.nodeName) && size(self.spec.topology.server.placement.nodeName) > 0) || (has(self.spec.topology.server.placement.nodeSelector) && size(self.spec.topology.server.placement.nodeSelector) > 0) || (has(self.spec.topology.server.placement.affinity) && has(self.spec.topology.server.placement.affinity.nodeAffinity) && has(self.spec.topology.server.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) && size(self.spec.topology.server.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) > 0)) && has(self.spec.topology.client.placement) && ((has(self.spec.topology.client.placement.nodeName) && size(self.spec.topology.client.placement.nodeName) > 0) || (has(self.spec.topology.client.placement.nodeSelector) && size(self.spec.topology.client.placement.nodeSelector) > 0) || (has(self.spec.topology.client.placement.affinity) && has(self.spec.topology.client.placement.affinity.nodeAffinity) && has(self.spec.topology.client.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) && size(self.spec.topology.client.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) > 0)))",message="topology.mode CrossNode needs server.placement and client.placement (a node for each side), each naming its node: by nodeName, a non-empty nodeSelector, or affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution (tolerations or preferred affinity alone leave the node to chance)"
// +kubebuilder:validation:XValidation:rule="!(has(self.spec.topology.mode) && self.spec.topology.mode == 'CrossNode') || !has(self.spec.topology.placement)",message="topology.placement is for Loopback; with CrossNode set server.placement and client.placement instead"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.topology.mode) && self.spec.topology.mode == 'CrossNode') || (!has(self.spec.topology.server.placement) && !has(self.spec.topology.client.placement))",message="with topology.mode Loopback both sides share one node: set topology.placement, not server.placement or client.placement"
// +kubebuilder:validation:XValidation:rule="!(has(self.spec.topology.mode) && self.spec.topology.mode == 'CrossNode') || !has(self.spec.topology.server.placement) || !has(self.spec.topology.server.placement.nodeName) || !has(self.spec.topology.client.placement) || !has(self.spec.topology.client.placement.nodeName) || self.spec.topology.server.placement.nodeName != self.spec.topology.client.placement.nodeName",message="topology.mode CrossNode measures between two nodes, but server.placement.nodeName and client.placement.nodeName name the same node: name two nodes, or use mode Loopback on one node"
// +kubebuilder:validation:XValidation:rule="self.spec.transport != 'NCCL' || (has(self.spec.topology.server.gpus) && self.spec.topology.server.gpus >= 1)",message="transport NCCL runs one rank per GPU: set topology.server.gpus (and topology.client.gpus with CrossNode) to at least 1"
// +kubebuilder:validation:XValidation:rule="self.spec.transport != 'GPUCopy' || (has(self.spec.topology.server.gpus) && self.spec.topology.server.gpus >= 1)",message="transport GPUCopy measures the GPUs of one node: set topology.mode Loopback and topology.server.gpus to the number of GPUs to measure"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 40",message="metadata.name must be at most 40 characters, so that the pod names derived from it stay valid"
// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.status) && ((has(oldSelf.status.phase) && !(oldSelf.status.phase in ['Pending', 'Queued'])) || has(oldSelf.status.startTime) || (has(oldSelf.status.cellResults) && size(oldSelf.status.cellResults) > 0) || has(oldSelf.status.activeAttempt))) || (self.spec.transport == oldSelf.spec.transport && has(self.spec.roce) == has(oldSelf.spec.roce) && (!has(self.spec.roce) || self.spec.roce == oldSelf.spec.roce) && has(self.spec.rawEthernet) == has(oldSelf.spec.rawEthernet) && (!has(self.spec.rawEthernet) || self.spec.rawEthernet == oldSelf.spec.rawEthernet) && has(self.spec.socket) == has(oldSelf.spec.socket) && (!has(self.spec.socket) || self.spec.socket == oldSelf.spec.socket) && has(self.spec.nccl) == has(oldSelf.spec.nccl) && (!has(self.spec.nccl) || self.spec.nccl == oldSelf.spec.nccl) && has(self.spec.gpuCopy) == has(oldSelf.spec.gpuCopy) && (!has(self.spec.gpuCopy) || self.spec.gpuCopy == oldSelf.spec.gpuCopy) && has(self.spec.workload) == has(oldSelf.spec.workload) && (!has(self.spec.workload) || self.spec.workload == oldSelf.spec.workload) && has(self.spec.matrix) == has(oldSelf.spec.matrix) && (!has(self.spec.matrix) || self.spec.matrix == oldSelf.spec.matrix) && has(self.spec.run) == has(oldSelf.spec.run) && (!has(self.spec.run) || self.spec.run == oldSelf.spec.run) && (has(self.spec.image) && size(self.spec.image) > 0) == (has(oldSelf.spec.image) && size(oldSelf.spec.image) > 0) && (!has(self.spec.image) || size(self.spec.image) == 0 || self.spec.image == oldSelf.spec.image) && (has(self.spec.imagePullSecrets) ? self.spec.imagePullSecrets : []) == (has(oldSelf.spec.imagePullSecrets) ? oldSelf.spec.imagePullSecrets : []) && (has(self.spec.priorityClassName) && size(self.spec.priorityClassName) > 0) == (has(oldSelf.spec.priorityClassName) && size(oldSelf.spec.priorityClassName) > 0) && (!has(self.spec.priorityClassName) || size(self.spec.priorityClassName) == 0 || self.spec.priorityClassName == oldSelf.spec.priorityClassName) && (has(self.spec.topology.links) ? self.spec.topology.links : 1) == (has(oldSelf.spec.topology.links) ? oldSelf.spec.topology.links : 1) && has(self.spec.topology.mode) == has(oldSelf.spec.topology.mode) && (!has(self.spec.topology.mode) || self.spec.topology.mode == oldSelf.spec.topology.mode) && has(self.spec.topology.mtu) == has(oldSelf.spec.topology.mtu) && (!has(self.spec.topology.mtu) || self.spec.topology.mtu == oldSelf.spec.topology.mtu) && has(self.spec.topology.coreSharing) == has(oldSelf.spec.topology.coreSharing) && (!has(self.spec.topology.coreSharing) || self.spec.topology.coreSharing == oldSelf.spec.topology.coreSharing) && (has(self.spec.topology.server.hostNetwork) ? self.spec.topology.server.hostNetwork : false) == (has(oldSelf.spec.topology.server.hostNetwork) ? oldSelf.spec.topology.server.hostNetwork : false) && (has(self.spec.topology.server.networks) ? self.spec.topology.server.networks : []) == (has(oldSelf.spec.topology.server.networks) ? oldSelf.spec.topology.server.networks : []) && (has(self.spec.topology.server.address) && size(self.spec.topology.server.address) > 0) == (has(oldSelf.spec.topology.server.address) && size(oldSelf.spec.topology.server.address) > 0) && (!has(self.spec.topology.server.address) || size(self.spec.topology.server.address) == 0 || self.spec.topology.server.address == oldSelf.spec.topology.server.address) && (has(self.spec.topology.server.devices) ? self.spec.topology.server.devices : []) == (has(oldSelf.spec.topology.server.devices) ? oldSelf.spec.topology.server.devices : []) && has(self.spec.topology.server.hugepages) == has(oldSelf.spec.topology.server.hugepages) && (!has(self.spec.topology.server.hugepages) || self.spec.topology.server.hugepages == oldSelf.spec.topology.server.hugepages) && (has(self.spec.topology.server.gpus) ? self.spec.topology.server.gpus : 0) == (has(oldSelf.spec.topology.server.gpus) ? oldSelf.spec.topology.server.gpus : 0) && has(self.spec.topology.server.cores) == has(oldSelf.spec.topology.server.cores) && (!has(self.spec.topology.server.cores) || self.spec.topology.server.cores == oldSelf.spec.topology.server.cores) && (has(self.spec.topology.server.privileged) ? self.spec.topology.server.privileged : false) == (has(oldSelf.spec.topology.server.privileged) ? oldSelf.spec.topology.server.privileged : false) && (has(self.spec.topology.client.hostNetwork) ? self.spec.topology.client.hostNetwork : false) == (has(oldSelf.spec.topology.client.hostNetwork) ? oldSelf.spec.topology.client.hostNetwork : false) && (has(self.spec.topology.client.networks) ? self.spec.topology.client.networks : []) == (has(oldSelf.spec.topology.client.networks) ? oldSelf.spec.topology.client.networks : []) && (has(self.spec.topology.client.address) && size(self.spec.topology.client.address) > 0) == (has(oldSelf.spec.topology.client.address) && size(oldSelf.spec.topology.client.address) > 0) && (!has(self.spec.topology.client.address) || size(self.spec.topology.client.address) == 0 || self.spec.topology.client.address == oldSelf.spec.topology.client.address) && (has(self.spec.topology.client.devices) ? self.spec.topology.client.devices : []) == (has(oldSelf.spec.topology.client.devices) ? oldSelf.spec.topology.client.devices : []) && has(self.spec.topology.client.hugepages) == has(oldSelf.spec.topology.client.hugepages) && (!has(self.spec.topology.client.hugepages) || self.spec.topology.client.hugepages == oldSelf.spec.topology.client.hugepages) && (has(self.spec.topology.client.gpus) ? self.spec.topology.client.gpus : 0) == (has(oldSelf.spec.topology.client.gpus) ? oldSelf.spec.topology.client.gpus : 0) && has(self.spec.topology.client.cores) == has(oldSelf.spec.topology.client.cores) && (!has(self.spec.topology.client.cores) || self.spec.topology.client.cores == oldSelf.spec.topology.client.cores) && (has(self.spec.topology.client.privileged) ? self.spec.topology.client.privileged : false) == (has(oldSelf.spec.topology.client.privileged) ? oldSelf.spec.topology.client.privileged : false))",message="a started bench keeps measuring the same thing: once it has left Pending (or has a start time, a cell result or an active attempt), transport, roce, rawEthernet, socket, nccl, gpuCopy, matrix, workload, run, image, imagePullSecrets, priorityClassName, topology.links, topology.mode, topology.mtu, topology.coreSharing and every field of topology.server and topology.client except placement are fixed; only suspend, results and ttlSecondsAfterFinished may change, and placement until the first cell starts. Delete and re-create the SpiralBench to measure something else"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !(has(oldSelf.status.startTime) || (has(oldSelf.status.cellResults) && size(oldSelf.status.cellResults) > 0) || has(oldSelf.status.activeAttempt)) || (has(self.spec.topology.placement) == has(oldSelf.spec.topology.placement) && (!has(self.spec.topology.placement) || self.spec.topology.placement == oldSelf.spec.topology.placement) && has(self.spec.topology.server.placement) == has(oldSelf.spec.topology.server.placement) && (!has(self.spec.topology.server.placement) || self.spec.topology.server.placement == oldSelf.spec.topology.server.placement) && has(self.spec.topology.client.placement) == has(oldSelf.spec.topology.client.placement) && (!has(self.spec.topology.client.placement) || self.spec.topology.client.placement == oldSelf.spec.topology.client.placement))",message="placement (topology.placement, topology.server.placement, topology.client.placement) is fixed once the first cell has started (status.startTime, a cell result or an active attempt): the nodes and status.environment were chosen by it. Delete and re-create the SpiralBench to measure on other nodes"
// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.status) && ((has(oldSelf.status.phase) && !(oldSelf.status.phase in ['Pending', 'Queued'])) || has(oldSelf.status.startTime) || (has(oldSelf.status.cellResults) && size(oldSelf.status.cellResults) > 0) || has(oldSelf.status.activeAttempt))) || (has(self.spec.acceptance) == has(oldSelf.spec.acceptance) && (!has(self.spec.acceptance) || self.spec.acceptance == oldSelf.spec.acceptance))",message="spec.acceptance is fixed once the bench has started: its Passed condition is judged by these rules, and rules changed afterwards would stand beside a verdict they did not make. To judge the results by other rules, create a new SpiralBench (a copy of this spec with the new acceptance)"
type SpiralBench struct {
	metav1.TypeMeta `json:",inline"`
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
