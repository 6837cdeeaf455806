package benchkind

import sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"

// Admission is what the CRD lets a spec of the kind ask for. hack/gen-admission writes the
// CEL rules that depend on the kinds from these fields (api/v1alpha1/zz_generated_admission.go),
// so a new kind's admission comes from its profile; test/contract holds the fields the data
// plane also knows (rate search, several links, one cell per sweep) to spiral-dataplane
// --describe-kinds.
type Admission struct {
	// SpecField is the spec field with the kind's own options ("roce"), refused on every other
	// kind; kinds may share one (TCP and UDP: "socket"). "" for none.
	SpecField string
	// LatencyMode: spec.<SpecField>.mode Latency ping-pongs one message, so nothing is paced
	// and no stream is received (no target rates, DropCurve, workload or rate search there).
	LatencyMode bool
	// MultiLink: topology.links may exceed 1, the kind spreads its pairs over several links
	// (the data plane's multi_link).
	MultiLink bool
	// Pairs: matrix.pairs (parallel streams of a cell) applies.
	Pairs bool
	// Bursts: matrix.batches above 1 (packets per burst) apply.
	Bursts bool
	// QueueCells: matrix.queues (TX,RX queue cells) and the QueueScaling preset apply.
	QueueCells bool
	// OneFrame: each payload is one datagram or frame, at most topology.mtu - 28 bytes.
	OneFrame bool
	// MaxPayloadBytes bounds the payloads whatever topology.mtu says; 0: no bound of its own.
	MaxPayloadBytes int32
	// RateSearch: the kind paces its sender and counts every loss, so run.search, the
	// NoDropRate preset and NDR acceptance apply (the data plane's rate_search).
	RateSearch bool
	// SweepInCell: the kind sweeps its sizes inside one cell (the data plane's run mode ranks),
	// so the matrix lists stay empty, the preset Smoke, and stream figures do not exist.
	SweepInCell bool
	// GPUs, when set, is why the kind needs topology.server.gpus (and across nodes
	// topology.client.gpus), which GPUCount says how to set: admission's messages, on a bench,
	// a fleet's template and a suite step, when they are missing read "<GPUs>: set ... <GPUCount>".
	GPUs, GPUCount string
	// OneNode, when set, is why the kind runs on one node (its ranks all sit on node slot 0):
	// admission's message for topology.mode CrossNode.
	OneNode string
}

// AdmitsPreset says whether the kind's rules let a spec use preset p: forward is
// rawEthernet.forward set, search is run.search set. The generated rules and this agree;
// pkg/testing uses it to walk only what admission lets through.
func (k Profile) AdmitsPreset(p sbv1.Preset, forward, search bool) bool {
	a := k.Admission
	switch {
	case forward:
		return a.SpecField == "rawEthernet" &&
			(p == sbv1.PresetSmoke || p == sbv1.PresetDropCurve || p == sbv1.PresetForwardPacketSize || p == sbv1.PresetForwardBurst)
	case a.SweepInCell:
		return p == sbv1.PresetSmoke
	case p == sbv1.PresetForwardPacketSize || p == sbv1.PresetForwardBurst:
		return false
	case p == sbv1.PresetQueueScaling:
		return a.QueueCells
	case p == sbv1.PresetNoDropRate:
		return search && a.RateSearch
	case p == sbv1.PresetDropCurve:
		return !search
	}
	return true
}
