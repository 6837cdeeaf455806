package testing

import (
	"slices"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// PresetAdmitted says whether admission lets a spec use a preset, by the rules of
// spiralbench_types.go on kinds and presets (test/integration checks those rules themselves):
// NCCL and GPUCopy sweep inside one Smoke cell; QueueScaling is RawEthernet's; the forward mode
// takes Smoke, DropCurve and the forward presets, which need it; NoDropRate needs a rate
// search, DropCurve none. Tests that walk every kind and preset (the cell bound against the
// planner, rendered flags against the data plane) skip the rest.
func PresetAdmitted(spec *sbv1.SpiralBenchSpec, p sbv1.Preset) bool {
	t := spec.Transport
	switch {
	case spec.RawEthernet != nil && spec.RawEthernet.Forward != nil:
		return t == sbv1.TransportRawEthernet &&
			slices.Contains([]sbv1.Preset{sbv1.PresetSmoke, sbv1.PresetDropCurve, sbv1.PresetForwardPacketSize, sbv1.PresetForwardBurst}, p)
	case t == sbv1.TransportNCCL || t == sbv1.TransportGPUCopy:
		return p == sbv1.PresetSmoke
	case p == sbv1.PresetForwardPacketSize || p == sbv1.PresetForwardBurst:
		return false
	case p == sbv1.PresetQueueScaling:
		return t == sbv1.TransportRawEthernet
	case p == sbv1.PresetNoDropRate:
		return spec.Run.Search != nil
	case p == sbv1.PresetDropCurve:
		return spec.Run.Search == nil
	}
	return true
}
