package rules

import (
	"fmt"

	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// noWorkload: neither spec.workload nor matrix.workloads asks for a GPU workload.
const noWorkload = "((!has(self.workload) || self.workload.kind == 'None') && " +
	"(!has(self.matrix.workloads) || self.matrix.workloads.all(w, w == 'None')))"

// forward: the RawEthernet forward mode is on.
const forward = "(has(self.rawEthernet) && has(self.rawEthernet.forward))"

// noRules: the spec has no acceptance rules (a rule on acceptance then checks each one).
const noRules = "!has(self.acceptance) || !has(self.acceptance.rules)"

// Spec are SpiralBenchSpec's rules that name kinds, each kind set read from the profiles.
// A rule on a kind's own spec field (spec.roce's mode) names that field's owners.
func Spec(ks Kinds) []Rule {
	var (
		inCell   = ks.where(func(a benchkind.Admission) bool { return a.SweepInCell })
		search   = ks.where(func(a benchkind.Admission) bool { return a.RateSearch })
		links    = ks.where(func(a benchkind.Admission) bool { return a.MultiLink })
		pairs    = ks.where(func(a benchkind.Admission) bool { return a.Pairs })
		bursts   = ks.where(func(a benchkind.Admission) bool { return a.Bursts })
		queues   = ks.where(func(a benchkind.Admission) bool { return a.QueueCells })
		oneFrame = ks.where(func(a benchkind.Admission) bool { return a.OneFrame })
		socket   = ks.owners("socket")
		roce     = ks.owners("roce")
		raw      = ks.owners("rawEthernet")
		nccl     = ks.owners("nccl")
	)
	rules := ks.specFieldRules()
	rules = append(rules,
		Rule{"!has(self.topology.links) || self.topology.links == 1 || " + links.is("self"),
			"topology.links above 1 applies to " + links.names() + " (RoCE and RawEthernet drive one device or port pair " +
				"per cell, docs/wire.md \"Several links\"): set links to 1"},
		Rule{"!has(self.matrix.pairs) || size(self.matrix.pairs) == 0 || " + pairs.is("self"),
			"matrix.pairs (socket pairs) applies to " + pairs.names() + " only: remove it for RawEthernet and RoCE"},
		Rule{"!has(self.matrix.batches) || " + bursts.is("self") + " || self.matrix.batches.all(b, b == 1)",
			"matrix.batches above 1 apply to " + bursts.names() + " only (packets per burst): use 1 or remove batches"},
		Rule{"!has(self.matrix.queues) || size(self.matrix.queues) == 0 || " + queues.is("self"),
			"matrix.queues (TX,RX queue cells) applies to " + queues.names() + " only: remove it"},
		Rule{"!has(self.matrix.targetRatesMbps) || " + roce.isNot("self") + " || !has(self.roce) || !has(self.roce.mode) || " +
			"self.roce.mode != 'Latency' || self.matrix.targetRatesMbps.all(t, t == 0)",
			"matrix.targetRatesMbps paces streams: RoCE in Latency mode has one message in flight, use 0 or remove it"},
		Rule{"!(self.matrix.preset in ['DropCurve']) || " + roce.isNot("self") + " || !has(self.roce) || !has(self.roce.mode) || " +
			"self.roce.mode != 'Latency'",
			"matrix.preset DropCurve needs a paced stream: RoCE in Latency mode has nothing to pace, use Mode Bandwidth"},
		Rule{socketLatencyOr(socket, "(has(self.matrix.pairs) && size(self.matrix.pairs) > 0 && self.matrix.pairs.all(p, p == 1))"),
			"socket.mode Latency ping-pongs on one socket: set matrix.pairs to [1] (the presets sweep more pairs)"},
		Rule{socketLatencyOr(socket, "((!has(self.matrix.targetRatesMbps) || self.matrix.targetRatesMbps.all(t, t == 0)) && "+
			"self.matrix.preset != 'DropCurve')"),
			"socket.mode Latency has one message in flight, nothing to pace: use matrix.targetRatesMbps 0 (or remove it) " +
				"and a preset other than DropCurve"},
		Rule{socketLatencyOr(socket, noWorkload),
			"socket.mode Latency echoes each message back, there is no received stream for a GPU workload: set the " +
				"workload to None or use socket.mode Bandwidth"},
		Rule{"self.matrix.preset != 'QueueScaling' || " + queues.is("self"),
			"matrix.preset QueueScaling sweeps DPDK queue cells: use it with " + queues.names() + " only"},
		Rule{oneFrame.isNot("self") + " || !has(self.matrix.payloadBytes) || " +
			"self.matrix.payloadBytes.all(p, p <= self.topology.mtu - 28)",
			"UDP and RawEthernet payloads must fit one frame: each of matrix.payloadBytes must be at most topology.mtu - 28 " +
				"(IPv4 + UDP headers); lower the payload or raise topology.mtu"},
	)
	rules = append(rules, ks.maxPayloadRules()...)
	rawBatch := ks.only("rawEthernet").Headline.Batch
	rules = append(rules,
		Rule{raw.isNot("self") + " || !has(self.rawEthernet) || !has(self.rawEthernet.ringDescriptors) || " +
			"self.rawEthernet.ringDescriptors == 0 || (has(self.matrix.batches) && size(self.matrix.batches) > 0 ? " +
			"self.matrix.batches.all(b, b <= self.rawEthernet.ringDescriptors) : " +
			fmt.Sprintf("self.rawEthernet.ringDescriptors >= %d)", rawBatch),
			fmt.Sprintf("rawEthernet.ringDescriptors must hold a whole burst: every batch (matrix.batches, or the preset's %d "+
				"when it is empty) must be at most ringDescriptors; raise ringDescriptors or lower the batches", rawBatch)},
	)
	rules = append(rules, ks.oneNodeRules()...)
	rules = append(rules,
		Rule{"!has(self.matrix.workloadBatchBytes) || self.matrix.workloadBatchBytes.all(b, b == 0) || " + inCell.is("self") +
			" || (" + socket.is("self") + " && " + latency("socket") + ") || (" + roce.is("self") +
			" && has(self.roce) && (self.roce.verb == 'Read' || self.roce.mode == 'Latency')) || " + forward +
			" || (has(self.matrix.workloads) ? self.matrix.workloads.exists(w, w != 'None') : " +
			"(has(self.workload) && self.workload.kind != 'None'))",
			"matrix.workloadBatchBytes sizes the GPU working set: set a workload kind other than None (spec.workload.kind " +
				"or matrix.workloads)"},
		Rule{"!has(self.matrix.workloadBatchBytes) || self.matrix.workloadBatchBytes.all(b, b == 0) || " +
			"!((has(self.socket) && " + socket.is("self") + " && has(self.socket.mode) && self.socket.mode == 'Latency') || (" +
			roce.is("self") + " && has(self.roce) && (self.roce.verb == 'Read' || self.roce.mode == 'Latency')) || (" +
			raw.is("self") + " && has(self.rawEthernet) && has(self.rawEthernet.forward)))",
			"matrix.workloadBatchBytes sizes a GPU workload on received data, which socket.mode Latency, roce.verb Read, " +
				"roce.mode Latency and the RawEthernet forward mode do not run: remove matrix.workloadBatchBytes"},
		Rule{raw.isNot("self") + " || !has(self.rawEthernet) || self.rawEthernet.memory != 'Device' || " + noWorkload,
			"a RawEthernet GPU workload reads the frames from rawEthernet.memory HostPinned (in place) or Host (staged copy); " +
				"Device (mbuf data in GPU memory through DPDK gpudev) is not supported by the data plane: set " +
				"rawEthernet.memory to HostPinned"},
		Rule{roce.isNot("self") + " || !has(self.roce) || (self.roce.verb != 'Read' && self.roce.mode != 'Latency') || " +
			noWorkload,
			"a RoCE GPU workload runs on what the server receives: use roce.verb Send or Write in mode Bandwidth, or set the " +
				"workload to None"},
		Rule{noWorkload + " || " + inCell.is("self") + " || " + forward +
			" || (has(self.topology.server.gpus) && self.topology.server.gpus >= 1)",
			"a GPU workload runs on the receiving side: set topology.server.gpus to at least 1"},
		Rule{inCell.isNot("self") + " || (self.matrix.preset == 'Smoke' && " + emptyLists(
			"payloadBytes", "batches", "pairs", "targetRatesMbps", "workloads", "workloadBatchBytes") + ")",
			"NCCL and GPUCopy sweep their sizes themselves (nccl.minBytes..maxBytes, gpuCopy.minBytes..maxBytes): leave the " +
				"matrix lists empty and matrix.preset Smoke"},
		Rule{inCell.isNot("self") + " || !has(self.workload) || self.workload.kind == 'None'",
			inCell.names() + " run no GPU workload on received data: remove spec.workload"},
	)
	rules = append(rules, ks.gpuPairRules()...)
	rules = append(rules,
		Rule{nccl.isNot("self") + " || !has(self.nccl) || !has(self.nccl.root) || !has(self.topology.server.gpus) || " +
			"self.topology.server.gpus == 0 || self.nccl.root < self.topology.server.gpus + " +
			"(self.topology.mode == 'CrossNode' && has(self.topology.client.gpus) ? self.topology.client.gpus : 0)",
			"nccl.root must be one of the ranks: below the number of GPUs (topology.server.gpus, plus topology.client.gpus " +
				"with CrossNode)"},
		Rule{nccl.isNot("self") + " || !has(self.nccl) || self.nccl.network != 'RDMA' || " +
			"(((has(self.topology.server.devices) && size(self.topology.server.devices) > 0) || " +
			"(has(self.topology.server.hostNetwork) && self.topology.server.hostNetwork)) && " +
			"(self.topology.mode != 'CrossNode' || (has(self.topology.client.devices) && size(self.topology.client.devices) > 0) || " +
			"(has(self.topology.client.hostNetwork) && self.topology.client.hostNetwork)))",
			"nccl.network RDMA needs each pod's RDMA devices: list them in topology.server.devices (and " +
				"topology.client.devices with CrossNode), or use hostNetwork"},
		Rule{"((!has(self.matrix.forwardWorks) || size(self.matrix.forwardWorks) == 0) && " +
			"(!has(self.matrix.memories) || size(self.matrix.memories) == 0) && " +
			"!(self.matrix.preset in ['ForwardPacketSize', 'ForwardBurst'])) || (" + raw.is("self") + " && " + forward + ")",
			"matrix.forwardWorks, matrix.memories and the presets ForwardPacketSize and ForwardBurst apply to the RawEthernet " +
				"forward mode: set transport RawEthernet and rawEthernet.forward, or remove them"},
		Rule{raw.isNot("self") + " || !has(self.rawEthernet) || !has(self.rawEthernet.memory) || " +
			"self.rawEthernet.memory != 'Device'",
			"rawEthernet.memory Device (mbuf data in GPU memory through DPDK gpudev) is not supported by the data plane, in " +
				"the plain or the forward mode, as matrix.memories Device is not: use Host or HostPinned (HostPinned is what a " +
				"GPU reads in place)"},
	)
	rules = append(rules, ks.figureRules()...)
	return append(rules, ks.searchRules(inCell, search, socket)...)
}

// socketLatencyOr: unless a socket kind is in socket.mode Latency, or then.
func socketLatencyOr(socket set, then string) string {
	return "!has(self.socket) || " + socket.isNot("self") + " || !has(self.socket.mode) || self.socket.mode != 'Latency' || " + then
}

// emptyLists: each of the matrix's lists is unset or empty.
func emptyLists(lists ...string) string {
	s := ""
	for i, l := range lists {
		if i > 0 {
			s += " && "
		}
		s += fmt.Sprintf("(!has(self.matrix.%s) || size(self.matrix.%s) == 0)", l, l)
	}
	return s
}
