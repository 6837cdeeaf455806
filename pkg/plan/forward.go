package plan

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The forward mode's headline (l2fwd-nv's defaults): 1024-byte payloads in bursts of 64.
const (
	forwardHeadlinePayload = 1024
	forwardHeadlineBatch   = 64
)

// forwardPacketSizes and forwardBursts are l2fwd-nv's two tables: throughput vs packet size
// (CPU vs GPU-accessible memory) and vs burst size for the three GPU work modes.
var (
	forwardPacketSizes = []int32{64, 128, 256, 512, 1024}
	forwardBursts      = []int32{16, 32, 64, 128}
	forwardGPUWorks    = []sbv1.ForwardWork{sbv1.ForwardWorkGPUKernel, sbv1.ForwardWorkGPUPersistent, sbv1.ForwardWorkGPUGraphs}
)

// forwardDimensions fills the forward mode's lists of a RawEthernet spec with rawEthernet.forward:
// its queue cell is (pipelines, pipelines), the headline is l2fwd-nv's, the Forward* presets are
// its tables, and lists the user gave win. Leaves other specs alone.
func forwardDimensions(spec *sbv1.SpiralBenchSpec, preset sbv1.Preset, d *dimensions) {
	if spec.Transport != sbv1.TransportRawEthernet || spec.RawEthernet == nil || spec.RawEthernet.Forward == nil {
		return
	}
	f := spec.RawEthernet.Forward
	m := spec.Matrix
	pipelines := f.Pipelines
	if pipelines == 0 {
		pipelines = 1
	}
	d.queues = []sbv1.QueueCell{{TX: pipelines, RX: pipelines}}
	work := f.Work
	if work == "" {
		work = sbv1.ForwardWorkNone
	}
	memory := spec.RawEthernet.Memory
	if memory == "" {
		memory = sbv1.MemoryHost
	}
	payloads, batches := []int32{forwardHeadlinePayload}, []int32{forwardHeadlineBatch}
	works, memories := []sbv1.ForwardWork{work}, []sbv1.MemoryKind{memory}
	switch preset {
	case sbv1.PresetForwardPacketSize:
		payloads = forwardPacketSizes
		memories = []sbv1.MemoryKind{sbv1.MemoryHost, sbv1.MemoryHostPinned}
	case sbv1.PresetForwardBurst:
		batches = forwardBursts
		works = forwardGPUWorks
		memories = []sbv1.MemoryKind{sbv1.MemoryHostPinned}
	}
	d.payloads = orDefault(m.PayloadBytes, payloads)
	d.batches = orDefault(m.Batches, batches)
	d.works = orDefault(m.ForwardWorks, works)
	d.memories = orDefault(m.Memories, memories)
}
