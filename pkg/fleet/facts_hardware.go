package fleet

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Hardware are the facts of a node's parts that are wrong on their own, whatever its class:
// links trained below what the part allows, NVLinks down, GPUs the bench did not see. They
// come from a bench's environment capture (the data plane's server rank).
type Hardware struct {
	// GPUsSeen by the bench's process; nil when the capture had no NVML (not known).
	GPUsSeen *int32
	// GPUsRequested by the bench's server pod (topology.server.gpus); 0 requests none.
	GPUsRequested int32
	GPUs          []GPUFact
	NICs          []NICFact
}

// GPUFact is one visible GPU's link facts; 0 where not known.
type GPUFact struct {
	Address                      string
	Gen, MaxGen, Width, MaxWidth int32
	// PState is NVML's performance state, -1 when not known.
	PState                 int32
	NVLinks, NVLinksActive int32
}

// NICFact is one interface's speed and link facts; 0 where not known.
type NICFact struct {
	Interface                    string
	SpeedMbps, MaxSpeedMbps      int64
	Gen, MaxGen, Width, MaxWidth int32
}

// hardwareOf reads the hardware facts of a bench's environment capture. A CrossNode bench's
// capture is its server's node only, and the judge does not know which of the two it judges:
// none are read from it, so a partner is never failed for the server's parts.
func hardwareOf(sb *sbv1.SpiralBench) Hardware {
	if sb.Spec.Topology.Mode == sbv1.TopologyCrossNode {
		return Hardware{GPUsRequested: sb.Spec.Topology.Server.GPUs}
	}
	return hardwareOfEnv(sb.Status.Environment, sb.Spec.Topology.Server.GPUs)
}

// hardwareOfEnv reads the hardware facts of one node's capture; requested is the GPUs its pod asked for.
func hardwareOfEnv(e *sbv1.Environment, requested int32) Hardware {
	h := Hardware{GPUsRequested: requested}
	if e == nil {
		return h
	}
	h.GPUsSeen = e.GPUCount
	for _, g := range e.GPUs {
		p := int32(-1)
		if g.PerformanceState != nil {
			p = *g.PerformanceState
		}
		h.GPUs = append(h.GPUs, GPUFact{Address: g.PCIAddress, Gen: g.PCIeGeneration, MaxGen: g.PCIeMaxGeneration,
			Width: g.PCIeWidth, MaxWidth: g.PCIeMaxWidth, PState: p, NVLinks: g.NVLinks, NVLinksActive: g.NVLinksActive})
	}
	for _, n := range e.NICs {
		h.NICs = append(h.NICs, NICFact{Interface: n.Interface, SpeedMbps: n.SpeedMbps, MaxSpeedMbps: n.MaxSpeedMbps,
			Gen: n.PCIeGeneration, MaxGen: n.PCIeMaxGeneration, Width: n.PCIeWidth, MaxWidth: n.PCIeMaxWidth})
	}
	return h
}

// merge keeps h where it holds a capture, else takes o's; of two captures, the one of the bench
// that asked for more GPUs (a whole-node step says more of the node than a one-GPU step).
func (h Hardware) merge(o Hardware) Hardware {
	if !h.captured() || (o.captured() && o.GPUsRequested > h.GPUsRequested) {
		return o
	}
	return h
}

func (h Hardware) captured() bool { return h.GPUsSeen != nil || len(h.GPUs) > 0 || len(h.NICs) > 0 }

// downtrained says whether a link runs below what its part and slot allow, in words: "Gen4 x16
// (max Gen5 x16)". Unknown sides are never guessed; speed only counts where countSpeed.
func downtrained(gen, maxGen, width, maxWidth int32, countSpeed bool) (string, bool) {
	widthLow := width > 0 && maxWidth > 0 && width < maxWidth
	speedLow := countSpeed && gen > 0 && maxGen > 0 && gen < maxGen
	if !widthLow && !speedLow {
		return "", false
	}
	return fmt.Sprintf("Gen%d x%d (max Gen%d x%d)", gen, width, maxGen, maxWidth), true
}

// hardwareReasons are the reasons of wrong hardware facts. nodeGPUs is the node's allocatable
// nvidia.com/gpu (0: not known); expectNVLink is the class's word that the GPUs have NVLink.
func hardwareReasons(h Hardware, nodeGPUs int32, expectNVLink bool) []Reason {
	var out []Reason
	for _, g := range h.GPUs {
		// A GPU below P0 lowers its link's speed to save power (nvidia-smi's "PCIe Generation
		// Current"): a slower generation is a fault only at full power; a narrower link always.
		if what, ok := downtrained(g.Gen, g.MaxGen, g.Width, g.MaxWidth, g.PState <= 0); ok {
			out = append(out, Reason{Code: PCIeDowntrained, Detail: "GPU " + g.Address + " " + what})
		}
	}
	for _, n := range h.NICs {
		if what, ok := downtrained(n.Gen, n.MaxGen, n.Width, n.MaxWidth, true); ok {
			out = append(out, Reason{Code: PCIeDowntrained, Detail: "NIC " + n.Interface + " " + what})
		}
	}
	for i, g := range h.GPUs {
		// Every link down is what a PCIe card without its bridge shows too: a fault only where
		// the class has NVLink. Some links down is one anywhere.
		if g.NVLinks > 0 && g.NVLinksActive < g.NVLinks && (g.NVLinksActive > 0 || expectNVLink) {
			out = append(out, Reason{Code: NVLinkDown, Detail: fmt.Sprintf("GPU%d %d/%d", i, g.NVLinksActive, g.NVLinks)})
		}
	}
	if seen, want := h.GPUsSeen, gpusExpected(h, nodeGPUs); seen != nil && want > 0 && *seen < want {
		out = append(out, Reason{Code: GPUMissing, Detail: fmt.Sprintf("%d/%d", *seen, want)})
	}
	for _, n := range h.NICs {
		if n.SpeedMbps > 0 && n.MaxSpeedMbps > 0 && n.SpeedMbps < n.MaxSpeedMbps {
			out = append(out, Reason{Code: NICSpeedLow, Detail: fmt.Sprintf("%s %d/%d", n.Interface, n.SpeedMbps, n.MaxSpeedMbps)})
		}
	}
	return out
}

// gpusExpected is how many GPUs the bench should have seen: the node's allocatable, or fewer
// where its pod asked for fewer (the device plugin gives a pod only its request). A bench that
// asked for none and saw none says nothing of the node's GPUs: 0, not judged.
func gpusExpected(h Hardware, nodeGPUs int32) int32 {
	want := nodeGPUs
	if h.GPUsRequested > 0 && (want == 0 || h.GPUsRequested < want) {
		want = h.GPUsRequested
	}
	if h.GPUsRequested == 0 && (h.GPUsSeen == nil || *h.GPUsSeen == 0) {
		return 0
	}
	return want
}
