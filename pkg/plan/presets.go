package plan

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
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
	// works and memories vary in the RawEthernet forward mode only; one empty entry elsewhere.
	works    []sbv1.ForwardWork
	memories []sbv1.MemoryKind
}

// dropCurveTargetsMbps are DAQIRI's drop-curve steps: 1..100 Gb/s, then unpaced.
var dropCurveTargetsMbps = []int32{1000, 5000, 10000, 25000, 50000, 75000, 100000, 0}

// presetDimensions returns the preset's lists for a kind, in the order of the seed's tables
// (rows first): the kind's headline cell, widened by what the preset varies. The kind says
// what its Sweep varies; QueueScaling and DropCurve vary the same lists for every kind that
// admission lets use them.
func presetDimensions(p sbv1.Preset, kind benchkind.Profile) dimensions {
	h := kind.Headline
	d := dimensions{
		payloads: []int32{h.PayloadBytes},
		batches:  []int32{h.Batch},
		pairs:    []int32{h.Pairs},
		queues:   []sbv1.QueueCell{h.Queues},
		targets:  []int32{0},
		works:    []sbv1.ForwardWork{""},
		memories: []sbv1.MemoryKind{""},
	}
	switch p {
	case sbv1.PresetSweep:
		d.payloads = orDefault(kind.Sweep.PayloadBytes, d.payloads)
		d.batches = orDefault(kind.Sweep.Batches, d.batches)
		d.pairs = orDefault(kind.Sweep.Pairs, d.pairs)
	case sbv1.PresetQueueScaling:
		d.payloads = []int32{64, 256, 1024, 4096, 8000}
		d.queues = []sbv1.QueueCell{{TX: 1, RX: 1}, {TX: 1, RX: 2}, {TX: 2, RX: 1}, {TX: 2, RX: 2}}
	case sbv1.PresetDropCurve:
		d.targets = dropCurveTargetsMbps
	case sbv1.PresetNoDropRate:
		// DAQIRI's drop curves step the rate by hand at each payload; the search finds it.
		d.payloads = orDefault(kind.Sweep.PayloadBytes, d.payloads)
	}
	return d
}
