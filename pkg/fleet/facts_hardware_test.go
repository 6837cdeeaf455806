package fleet

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func i32(v int32) *int32 { return &v }

// A bench whose environment capture saw a faulty 8-GPU node (one GPU hidden, one trained down,
// NVLinks down, a slow NIC): Observe reads the facts and the judge names each part.
func TestHardwareFactsFromTheEnvironmentRaiseTheirCodes(t *testing.T) {
	sb := &sbv1.SpiralBench{}
	sb.Spec.Topology.Server.GPUs = 8
	p0 := int32(0)
	sb.Status.Environment = &sbv1.Environment{EnvironmentDetail: sbv1.EnvironmentDetail{
		GPUCount: i32(7),
		GPUs: []sbv1.GPUEnvironment{
			{PCIAddress: "0000:1b:00.0", PCIeGeneration: 4, PCIeMaxGeneration: 5, PCIeWidth: 16, PCIeMaxWidth: 16, PerformanceState: &p0, NVLinks: 18, NVLinksActive: 18},
			{PCIAddress: "0000:2a:00.0", PCIeGeneration: 5, PCIeMaxGeneration: 5, PCIeWidth: 16, PCIeMaxWidth: 16, PerformanceState: &p0, NVLinks: 18, NVLinksActive: 12},
		},
		NICs: []sbv1.NICEnvironment{{Interface: "enp1s0f0", SpeedMbps: 10000, MaxSpeedMbps: 100000, PCIeGeneration: 4, PCIeMaxGeneration: 4, PCIeWidth: 16, PCIeMaxWidth: 16}},
	}}
	o := Observe(sb)
	j := Judge(Input{Steps: []StepOutcome{{Step: "copy", State: StepPassedState, Observation: o}}, NodeFacts: Facts{GPUCount: 8}})
	if j.Verdict != sbv1.NodeFailed {
		t.Errorf("verdict %s", j.Verdict)
	}
	want := []string{"GPU 0000:1b:00.0 Gen4 x16 (max Gen5 x16)", "GPU1 12/18", "7/8", "enp1s0f0 10000/100000"}
	if msg := j.Message(); msg != strings.Join(want, "; ") {
		t.Errorf("message %q, want %q", msg, strings.Join(want, "; "))
	}
	if got := codes(j); got != "PCIeDowntrained,NVLinkDown,GPUMissing,NICSpeedLow" {
		t.Errorf("codes %q", got)
	}
	// The same capture from a CrossNode bench is its server's node, maybe not this one: unread.
	sb.Spec.Topology.Mode = sbv1.TopologyCrossNode
	if h := Observe(sb).Facts.Hardware; h.captured() {
		t.Errorf("CrossNode: %+v", h)
	}
}

// A healthy node's facts raise nothing: links at their maximum, every NVLink up, every GPU seen.
func TestHealthyHardwareRaisesNothing(t *testing.T) {
	h := Hardware{GPUsSeen: i32(8), GPUsRequested: 8,
		GPUs: []GPUFact{{Address: "0000:1b:00.0", Gen: 5, MaxGen: 5, Width: 16, MaxWidth: 16, NVLinks: 18, NVLinksActive: 18}},
		NICs: []NICFact{{Interface: "enp1s0f0", SpeedMbps: 400000, MaxSpeedMbps: 400000, Gen: 5, MaxGen: 5, Width: 16, MaxWidth: 16}}}
	if r := hardwareReasons(h, 8, true); len(r) != 0 {
		t.Errorf("healthy: %+v", r)
	}
	j := Judge(Input{Steps: []StepOutcome{{State: StepPassedState, Observation: Observation{Facts: Facts{Hardware: h}}}}, NodeFacts: Facts{GPUCount: 8}})
	if j.Verdict != sbv1.NodePassed || len(j.Reasons) != 0 {
		t.Errorf("%s %q", j.Verdict, codes(j))
	}
}

// What is not known, or is no fault, raises nothing: never a guess.
func TestHardwareReasonsNeverGuess(t *testing.T) {
	cases := map[string]struct {
		h            Hardware
		nodeGPUs     int32
		expectNVLink bool
		want         string
	}{
		"no capture":                 {Hardware{}, 8, true, ""},
		"veth: no maximum speed":     {Hardware{NICs: []NICFact{{Interface: "veth0", SpeedMbps: 10000}}}, 0, false, ""},
		"NIC link down: no speed":    {Hardware{NICs: []NICFact{{Interface: "enp1s0f0", MaxSpeedMbps: 100000}}}, 0, false, ""},
		"unknown maximum link":       {Hardware{GPUs: []GPUFact{{Gen: 3, Width: 8}}}, 0, false, ""},
		"idle GPU slows its link":    {Hardware{GPUs: []GPUFact{{Address: "a", Gen: 1, MaxGen: 5, Width: 16, MaxWidth: 16, PState: 8}}}, 0, false, ""},
		"idle GPU narrower: a fault": {Hardware{GPUs: []GPUFact{{Address: "a", Gen: 1, MaxGen: 5, Width: 8, MaxWidth: 16, PState: 8}}}, 0, false, "PCIeDowntrained"},
		"NIC narrower":               {Hardware{NICs: []NICFact{{Interface: "e", Gen: 4, MaxGen: 4, Width: 8, MaxWidth: 16}}}, 0, false, "PCIeDowntrained"},
		"no NVLink at all":           {Hardware{GPUs: []GPUFact{{}}}, 0, true, ""},
		"PCIe card without bridge":   {Hardware{GPUs: []GPUFact{{NVLinks: 18}}}, 0, false, ""},
		"every link down on NVLink":  {Hardware{GPUs: []GPUFact{{NVLinks: 18}}}, 0, true, "NVLinkDown"},
		"no NVML: GPUs not counted":  {Hardware{GPUsRequested: 8}, 8, false, ""},
		"a one-GPU bench sees one":   {Hardware{GPUsSeen: i32(1), GPUsRequested: 1}, 8, false, ""},
		"a one-GPU bench sees none":  {Hardware{GPUsSeen: i32(0), GPUsRequested: 1}, 8, false, "GPUMissing"},
		"no GPU asked, none seen":    {Hardware{GPUsSeen: i32(0)}, 8, false, ""},
		"no GPU asked, all visible":  {Hardware{GPUsSeen: i32(8)}, 8, false, ""},
		"no GPU asked, some visible": {Hardware{GPUsSeen: i32(7)}, 8, false, "GPUMissing"},
		"node allocatable not known": {Hardware{GPUsSeen: i32(7), GPUsRequested: 8}, 0, false, "GPUMissing"},
	}
	for name, c := range cases {
		var got []string
		for _, r := range hardwareReasons(c.h, c.nodeGPUs, c.expectNVLink) {
			got = append(got, string(r.Code))
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: %v, want %q", name, got, c.want)
		}
	}
}

// Of two steps' captures the judge keeps the whole-node one.
func TestHardwareMergeKeepsTheLargerBench(t *testing.T) {
	one := Facts{Hardware: Hardware{GPUsSeen: i32(1), GPUsRequested: 1}}
	all := Facts{Hardware: Hardware{GPUsSeen: i32(7), GPUsRequested: 8}}
	if m := one.Merge(all); *m.Hardware.GPUsSeen != 7 {
		t.Errorf("merged %+v", m.Hardware)
	}
	if m := all.Merge(one); *m.Hardware.GPUsSeen != 7 {
		t.Errorf("merged %+v", m.Hardware)
	}
	if m := (Facts{}).Merge(one); *m.Hardware.GPUsSeen != 1 {
		t.Errorf("merged %+v", m.Hardware)
	}
}
