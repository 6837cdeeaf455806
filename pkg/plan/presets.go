package plan

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// dimensions are the matrix lists of one expansion.
type dimensions struct {
	payloads []int32
	batches  []int32
	pairs    []int32
	queues   []sbv1.QueueCell
	targets  []int32
	// workloads and workloadBatches come from the spec, never from a preset.
	workloads       []sbv1.WorkloadKind
	workloadBatches []int32
}

// MiB is 2^20 bytes.
const MiB = 1 << 20

// headlines are the cells DAQIRI's Spark summary reports for each transport: raw 8000 B at
// batch 10240 on one queue each way, RoCE SEND of 8 MiB messages, TCP and UDP 8000 B x 4 pairs.
var headlines = map[sbv1.Transport]sbv1.CellParameters{
	sbv1.TransportRawEthernet: {PayloadBytes: 8000, Batch: 10240, Pairs: 1, Queues: one},
	sbv1.TransportRoCE:        {PayloadBytes: 8 * MiB, Batch: 1, Pairs: 1, Queues: one},
	sbv1.TransportTCP:         {PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: one},
	sbv1.TransportUDP:         {PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: one},
}

var one = sbv1.QueueCell{TX: 1, RX: 1}

// dropCurveTargetsMbps are DAQIRI's drop-curve steps: 1..100 Gb/s, then unpaced.
var dropCurveTargetsMbps = []int32{1000, 5000, 10000, 25000, 50000, 75000, 100000, 0}

// presetDimensions returns the preset's lists for a transport, in the order of the
// seed's tables (rows first).
func presetDimensions(p sbv1.Preset, t sbv1.Transport) dimensions {
	h := headlines[t]
	d := dimensions{
		payloads: []int32{h.PayloadBytes},
		batches:  []int32{h.Batch},
		pairs:    []int32{h.Pairs},
		queues:   []sbv1.QueueCell{h.Queues},
		targets:  []int32{0},
	}
	switch p {
	case sbv1.PresetSweep:
		switch t {
		case sbv1.TransportRawEthernet:
			d.payloads = []int32{8000, 4096, 1024, 256, 64}
			d.batches = []int32{256, 1024, 4096, 10240}
		case sbv1.TransportRoCE:
			d.payloads = []int32{8 * MiB, 1 * MiB, 64 << 10, 8 << 10, 4 << 10}
		case sbv1.TransportTCP:
			d.payloads = []int32{1000, 8000, 1 * MiB}
			d.pairs = []int32{1, 2, 4}
		case sbv1.TransportUDP:
			d.payloads = []int32{1000, 8000}
			d.pairs = []int32{1, 2, 4}
		}
	case sbv1.PresetQueueScaling:
		d.payloads = []int32{64, 256, 1024, 4096, 8000}
		d.queues = []sbv1.QueueCell{{TX: 1, RX: 1}, {TX: 1, RX: 2}, {TX: 2, RX: 1}, {TX: 2, RX: 2}}
	case sbv1.PresetDropCurve:
		d.targets = dropCurveTargetsMbps
	}
	return d
}
