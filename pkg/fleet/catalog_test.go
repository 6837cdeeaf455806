package fleet

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestBuiltinCatalogParsesAndNamesASourceForEveryNumber(t *testing.T) {
	c := BuiltinCatalog()
	for _, want := range []string{"4xH200-NV18", "2xH200-NV18", "DGX-Spark-GB10-CX7", "cpu-only"} {
		cl := c.Class(want)
		if cl == nil {
			t.Fatalf("class %s missing", want)
		}
		for _, r := range cl.References {
			if !strings.Contains(r.Source, "docs/benchmarks") && !strings.Contains(r.Source, "seed") {
				t.Errorf("%s %s %s: source %q names neither a measurement page nor a published seed", want, r.Step, r.Figure, r.Source)
			}
		}
	}
}

func TestMatchClassByReportedFacts(t *testing.T) {
	c := BuiltinCatalog()
	cases := map[string]Facts{
		"4xH200-NV18":        {GPUModel: "NVIDIA H200", GPUCount: 4},
		"2xH200-NV18":        {GPUModel: "NVIDIA H200", GPUCount: 2},
		"DGX-Spark-GB10-CX7": {GPUModel: "NVIDIA GB10", GPUCount: 1, NICDriver: "mlx5_core"},
		"cpu-only":           {NICDriver: "veth"},
		"":                   {GPUModel: "NVIDIA H200", GPUCount: 8},
	}
	for want, f := range cases {
		got := ""
		if cl := c.MatchClass(f); cl != nil {
			got = cl.Name
		}
		if got != want {
			t.Errorf("%s: matched %q, want %q", f, got, want)
		}
	}
}

func TestParseCatalogRefusesWhatCannotBeJudged(t *testing.T) {
	for name, doc := range map[string]string{
		"version":   "version: 2\nclasses: []\n",
		"figure":    "version: 1\nclasses:\n- {name: a, match: {noGPU: true}, references: [{step: s, figure: Nope, expected: 1, tolerancePercent: 1, source: x}]}\n",
		"no source": "version: 1\nclasses:\n- {name: a, match: {noGPU: true}, references: [{step: s, figure: RxMbps, expected: 1, tolerancePercent: 1}]}\n",
		"repeated":  "version: 1\nclasses:\n- {name: a, match: {noGPU: true}, references: []}\n- {name: a, match: {noGPU: true}, references: []}\n",
		"unknown":   "version: 1\nclasses: []\nextra: 1\n",
	} {
		if _, err := ParseCatalog([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestReferenceBoundFollowsTheFigureDirection(t *testing.T) {
	up := Reference{Figure: "RxMbps", Expected: 100000, TolerancePercent: 5}
	down := Reference{Figure: "LatencyP50Nanoseconds", Expected: 2000, TolerancePercent: 10}
	if !up.Holds(95000) || up.Holds(94999) || !down.Holds(2200) || down.Holds(2201) {
		t.Fatalf("bounds %v %v", up.Bound(), down.Bound())
	}
}

func TestBuiltinSuitesResolveWithOverrides(t *testing.T) {
	for _, name := range []sbv1.SuiteName{sbv1.SuiteQuick, sbv1.SuiteStandard, sbv1.SuiteExtended} {
		if len(BuiltinSuite(name)) < 3 {
			t.Fatalf("suite %s has %d steps", name, len(BuiltinSuite(name)))
		}
	}
	spec := &sbv1.SpiralBenchFleetSpec{Suite: &sbv1.SuiteSpec{Builtin: sbv1.SuiteQuick, Steps: []sbv1.SuiteStep{
		{Name: "tcp", Template: &sbv1.FleetBenchTemplate{Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportUDP}}, OnFailure: sbv1.StepStop},
		{Name: "dcgm", Check: &sbv1.ExternalCheck{Image: "dcgm"}, DeadlineSeconds: 60},
	}}}
	steps := Steps(spec)
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "copy,nccl,tcp,dcgm" || steps[2].Template.Spec.Transport != sbv1.TransportUDP || !steps[2].Stop ||
		!steps[0].AllGPUs || steps[0].Stop || steps[3].Check == nil || steps[3].Deadline.Seconds() != 60 {
		t.Fatalf("%v %+v", names, steps)
	}
	one := Steps(&sbv1.SpiralBenchFleetSpec{Template: &sbv1.FleetBenchTemplate{}, Pairing: sbv1.PairingRing})
	if len(one) != 1 || one[0].Name != "" || !one[0].Pair || !one[0].Stop {
		t.Fatalf("a template is one step: %+v", one)
	}
}

func TestObserveReadsFiguresFactsAndLinks(t *testing.T) {
	sb := &sbv1.SpiralBench{}
	sb.Status.Environment = &sbv1.Environment{GPUModel: "NVIDIA H200"}
	sb.Status.Environment.GPUPCIeGeneration, sb.Status.Environment.GPUPCIeWidth = 5, 16
	sb.Status.CellResults = []sbv1.CellResult{{Headline: true, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{{State: sbv1.CellValid,
		Copies: &sbv1.CopyResult{GPUs: make([]sbv1.GPUPlacement, 2), PeerLinks: []sbv1.GPUPeerLink{{Path: "NV18"}},
			Sizes: []sbv1.CopySize{{Device: 0, Direction: "H2D", HostMemory: "Pinned", MegabytesPerSecond: 55000},
				{Device: 1, Direction: "H2D", HostMemory: "Pinned", MegabytesPerSecond: 27000},
				{Device: 1, Direction: "H2D", HostMemory: "Pageable", MegabytesPerSecond: 99000}}}}}}}
	o := Observe(sb)
	if o.Figures["CopyH2DMBps"] != 27000 || o.Facts.GPUCount != 2 || o.Facts.NVLink == nil || !*o.Facts.NVLink || o.Facts.PCIeGen != 5 {
		t.Fatalf("%+v", o)
	}
}
