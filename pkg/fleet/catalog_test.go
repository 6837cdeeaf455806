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
		// sbctl expect prints each source: it must be a page anyone can read, this repository's
		// measurements or a public address, never a path outside the repository.
		for _, r := range cl.References {
			if !strings.Contains(r.Source, "docs/benchmarks") && !strings.Contains(r.Source, "https://") {
				t.Errorf("%s %s %s: source %q names neither a measurement page nor a public address", want, r.Step, r.Figure, r.Source)
			}
			if strings.Contains(r.Source, "../") || strings.Contains(r.Source, "seeds/") {
				t.Errorf("%s %s %s: source %q names a path outside the repository", want, r.Step, r.Figure, r.Source)
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

// nicCatalog has a class keyed on the NIC's firmware (and driver), before a GB10 class that
// names no firmware: a node with other firmware falls through to it; without it, to none.
const nicCatalog = `version: 1
classes:
- name: spark-fw28.39
  match: {gpuModel: GB10, nicDriver: mlx5_core, nicFirmware: "28.39"}
  references: []
- name: cx7-fw28.44.1036
  match: {nicDriver: mlx5_core, nicFirmware: "28.44.1036"}
  references: []
`

// The NIC's firmware version is a match key: a class naming it matches only nodes reporting
// that version (or one it leads, up to a dot or a space), and a node that reports no firmware
// matches no such class: the judge says NoReference with what the node reported.
func TestMatchClassOnNICFirmware(t *testing.T) {
	c, err := ParseCatalog([]byte(nicCatalog))
	if err != nil {
		t.Fatal(err)
	}
	spark := func(fw string) Facts {
		return Facts{GPUModel: "NVIDIA GB10", GPUCount: 1, NICDriver: "mlx5_core", NICSpeedMbps: 200000, NICFirmware: fw}
	}
	cases := []matchCase{
		{spark("28.39.1002 (MT_0000000838)"), "spark-fw28.39"},    // a version it leads, then the board's PSID
		{spark("28.39"), "spark-fw28.39"},                         // the same version
		{spark("28.390.1"), ""},                                   // not at a dot or space: another version
		{spark("28.44.1036"), "cx7-fw28.44.1036"},                 // mismatch for the first class, the second's exact version
		{spark("28.44.10361"), ""},                                // exact key, longer version
		{Facts{NICDriver: "veth", NICFirmware: "28.44.1036"}, ""}, // firmware matches, driver does not
		{spark(""), ""},                                           // the node reports no firmware
		{Facts{GPUModel: "NVIDIA GB10", GPUCount: 1}, ""},         // nor any NIC fact
		{Facts{NICDriver: "mlx5_core", NICFirmware: "28.44.1036"}, "cx7-fw28.44.1036"},
	}
	checkMatches(t, c, cases)
	checkNoReference(t, c, spark(""), `no class matches 1 x "NVIDIA GB10", NIC mlx5_core 200000 Mb/s no firmware no PCI id`)
	checkNoReference(t, c, spark("28.50.1000"), `no class matches 1 x "NVIDIA GB10", NIC mlx5_core 200000 Mb/s firmware "28.50.1000" no PCI id`)
}

// The firmware comes from the environment capture's first NIC, with its driver and speed, and
// a step that reported NIC facts is not overwritten by a later one.
func TestFactsOfReadsTheFirstNICsFirmware(t *testing.T) {
	sb := &sbv1.SpiralBench{}
	sb.Status.Environment = &sbv1.Environment{}
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{
		{Interface: "enp1s0f0np0", Driver: "mlx5_core", Firmware: "28.39.1002 (MT_0000000838)", SpeedMbps: 200000},
		{Interface: "eth0", Driver: "veth"}}
	f := FactsOf(sb)
	if f.NICDriver != "mlx5_core" || f.NICFirmware != "28.39.1002 (MT_0000000838)" || f.NICSpeedMbps != 200000 {
		t.Fatalf("%+v", f)
	}
	if m := f.Merge(Facts{NICDriver: "veth"}); m.NICFirmware != f.NICFirmware || m.NICDriver != "mlx5_core" {
		t.Fatalf("merge replaced the NIC facts: %+v", m)
	}
	if m := (Facts{}).Merge(f); m.NICFirmware != f.NICFirmware {
		t.Fatalf("merge lost the firmware: %+v", m)
	}
}

// pciCatalog keys one class on a ConnectX-7's PCI id (with the GPU), one on another NIC's id
// alone, and a GB10 class without NIC keys last.
const pciCatalog = `version: 1
classes:
- name: spark-cx7
  match: {gpuModel: GB10, nicPCIID: "15b3:1021"}
  references: []
- name: cx6dx
  match: {nicPCIID: "15b3:101d"}
  references: []
- name: any-gb10
  match: {gpuModel: GB10}
  references: []
`

// The NIC's PCI vendor:device id is a match key: exact, and a node reporting none (a virtual
// interface, or an older data plane) matches no class that names one.
func TestMatchClassOnNICPCIID(t *testing.T) {
	c, err := ParseCatalog([]byte(pciCatalog))
	if err != nil {
		t.Fatal(err)
	}
	spark := func(id string) Facts {
		return Facts{GPUModel: "NVIDIA GB10", GPUCount: 1, NICDriver: "mlx5_core", NICSpeedMbps: 200000, NICPCIID: id}
	}
	cases := []matchCase{
		{spark("15b3:1021"), "spark-cx7"},                          // match
		{spark("15b3:101d"), "cx6dx"},                              // mismatch for the first, the second's id
		{spark("15b3:10211"), "any-gb10"},                          // not the id: falls through to the class without NIC keys
		{spark(""), "any-gb10"},                                    // nothing reported
		{Facts{NICDriver: "mlx5_core", NICPCIID: "15b3:1021"}, ""}, // the id alone, without the GPU the class names
		{Facts{NICDriver: "veth"}, ""},                             // a virtual interface: no id
	}
	checkMatches(t, c, cases)
	// Only the PCI-keyed class: a node reporting no id, or another one, is NoReference and says so.
	only, err := ParseCatalog([]byte("version: 1\nclasses:\n- {name: spark-cx7, match: {gpuModel: GB10, nicPCIID: \"15b3:1021\"}, references: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkNoReference(t, only, spark(""), `no class matches 1 x "NVIDIA GB10", NIC mlx5_core 200000 Mb/s no firmware no PCI id`)
	checkNoReference(t, only, spark("15b3:1017"), `no class matches 1 x "NVIDIA GB10", NIC mlx5_core 200000 Mb/s no firmware PCI id 15b3:1017`)
}

// A PCI id not written as lspci -n writes it is refused when the catalog is read.
func TestParseCatalogRefusesMalformedNICPCIID(t *testing.T) {
	for _, id := range []string{"15B3:1021", "0x15b3:0x1021", "15b3", "ConnectX-7", "15b3:1021 "} {
		doc := "version: 1\nclasses:\n- {name: c, match: {nicPCIID: \"" + id + "\"}, references: []}\n"
		if _, err := ParseCatalog([]byte(doc)); err == nil || !strings.Contains(err.Error(), "15b3:1021") {
			t.Errorf("nicPCIID %q: err %v, want a refusal with an example", id, err)
		}
	}
}

// The PCI id comes from the same interface as the driver and firmware, and merges with them.
func TestFactsOfReadsTheFirstNICsPCIID(t *testing.T) {
	sb := &sbv1.SpiralBench{}
	sb.Status.Environment = &sbv1.Environment{}
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{
		{Interface: "enp1s0f0np0", Driver: "mlx5_core", PCIID: "15b3:1021", SpeedMbps: 200000},
		{Interface: "enp1s0f1np1", Driver: "mlx5_core", PCIID: "15b3:101d"}}
	f := FactsOf(sb)
	if f.NICPCIID != "15b3:1021" {
		t.Fatalf("%+v", f)
	}
	if m := (Facts{GPUModel: "NVIDIA GB10"}).Merge(f); m.NICPCIID != "15b3:1021" || m.GPUModel != "NVIDIA GB10" {
		t.Fatalf("merge lost the PCI id: %+v", m)
	}
	if m := (Facts{NICPCIID: "15b3:101d"}).Merge(f); m.NICPCIID != "15b3:101d" || m.NICDriver != "" {
		t.Fatalf("merge mixed two interfaces' facts: %+v", m)
	}
}

// matchCase is a node's facts and the class it must match ("": none).
type matchCase struct {
	facts Facts
	want  string
}

func checkMatches(t *testing.T, c *Catalog, cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		got := ""
		if cl := c.MatchClass(tc.facts); cl != nil {
			got = cl.Name
		}
		if got != tc.want {
			t.Errorf("%s: matched %q, want %q", tc.facts, got, tc.want)
		}
	}
}

// checkNoReference: a node whose facts match no class is Invalid, NoReference, saying what it
// reported.
func checkNoReference(t *testing.T, c *Catalog, facts Facts, want string) {
	t.Helper()
	j := Judge(Input{Catalog: c, Steps: []StepOutcome{{Step: "tcp", State: StepPassedState, Observation: Observation{Facts: facts}}}})
	if j.Verdict != sbv1.NodeInvalid || codes(j) != "NoReference" || j.Message() != want {
		t.Errorf("%s: %s %s %q, want Invalid NoReference %q", facts, j.Verdict, codes(j), j.Message(), want)
	}
}
