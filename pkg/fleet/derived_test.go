package fleet

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// a10 is a node no class of the built-in catalog names.
var a10 = Facts{GPUModel: "NVIDIA A10", GPUCount: 1, PCIeGen: 4, PCIeWidth: 16}

// stepAt is a passed step whose figure read fraction of a ceiling of 31500 MB/s (PCIe Gen4 x16).
func stepAt(step, fig string, fraction float64) StepOutcome {
	s := passed(step, map[string]float64{fig: fraction * 31500})
	s.Facts = a10
	s.Ceilings = map[string]StepCeiling{fig: {Fraction: fraction, Ceiling: 31500, Unit: "MB/s", Name: "PCIe Gen4 x16 of GPU 0"}}
	return s
}

func derivedCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := ParseCatalog([]byte(`version: 1
derived: {minFractionOfCeiling: 0.7, source: "test"}
classes:
- name: relative-a10
  match: {gpuModel: A10, gpuCount: 2}
  references:
  - {step: copy, figure: CopyH2DMBps, minFractionOfCeiling: 0.8, source: "test"}
`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A node matching no class is judged against its own hardware: each passed step's figure at
// the catalog's fraction of its ceiling.
func TestANodeOfNoClassIsJudgedAgainstItsOwnHardware(t *testing.T) {
	cat := derivedCatalog(t)
	j := Judge(Input{Catalog: cat, Steps: []StepOutcome{stepAt("copy", "CopyH2DMBps", 0.96)}})
	if j.Verdict != sbv1.NodePassed || j.Class != DerivedClassName {
		t.Errorf("0.96 of the ceiling against 0.7: %s class %q %v", j.Verdict, j.Class, j.Reasons)
	}
	j = Judge(Input{Catalog: cat, Steps: []StepOutcome{stepAt("copy", "CopyH2DMBps", 0.5)}})
	if j.Verdict != sbv1.NodeFailed || codes(j) != "BelowReference:copy" ||
		!strings.Contains(j.Message(), "CopyH2DMBps 0.500 of 31.5 GB/s (PCIe Gen4 x16 of GPU 0), reference >= 0.70 of the ceiling (class derived-from-hardware)") {
		t.Errorf("0.5 of the ceiling: %s %s %q", j.Verdict, codes(j), j.Message())
	}
}

// A step whose ceiling is unknown gives no derived expectation: the others still judge the
// node and a note names it; with none known the node has no reference, saying why.
func TestDerivedExpectationsNeedAKnownCeiling(t *testing.T) {
	cat := derivedCatalog(t)
	veth := passed("tcp", map[string]float64{"RxMbps": 2900})
	veth.Facts = a10
	veth.Ceilings = map[string]StepCeiling{"RxMbps": {Unknown: "no wire (veth or loopback): the CPU moves the bytes"}}
	j := Judge(Input{Catalog: cat, Steps: []StepOutcome{stepAt("copy", "CopyH2DMBps", 0.9), veth}})
	if j.Verdict != sbv1.NodePassed || !strings.Contains(j.Message(), "tcp: no derived expectation, ceiling unknown: no wire") {
		t.Errorf("one known, one unknown: %s %v %q", j.Verdict, codes(j), j.Message())
	}
	j = Judge(Input{Catalog: cat, Steps: []StepOutcome{veth}})
	if j.Verdict != sbv1.NodeInvalid || codes(j) != "NoReference" || !strings.Contains(j.Message(), "no expectation can be derived from its hardware: tcp: ceiling unknown: no wire") {
		t.Errorf("none known: %s %v %q", j.Verdict, codes(j), j.Message())
	}
	cat.Derived = nil
	if j := Judge(Input{Catalog: cat, Steps: []StepOutcome{stepAt("copy", "CopyH2DMBps", 0.9)}}); codes(j) != "NoReference" {
		t.Errorf("a catalog without derived keeps NoReference: %v", codes(j))
	}
}

// A class's reference may be a fraction of the node's ceiling: it holds, breaks, and cannot be
// judged on an unknown ceiling.
func TestAClassReferenceRelativeToTheCeiling(t *testing.T) {
	cat := derivedCatalog(t)
	two := func(s StepOutcome) StepOutcome { s.Facts.GPUCount = 2; return s }
	if j := Judge(Input{Catalog: cat, Steps: []StepOutcome{two(stepAt("copy", "CopyH2DMBps", 0.85))}}); j.Verdict != sbv1.NodePassed || j.Class != "relative-a10" {
		t.Errorf("0.85 against 0.8: %s %q %v", j.Verdict, j.Class, codes(j))
	}
	if j := Judge(Input{Catalog: cat, Steps: []StepOutcome{two(stepAt("copy", "CopyH2DMBps", 0.75))}}); codes(j) != "BelowReference:copy" {
		t.Errorf("0.75 against 0.8: %v", codes(j))
	}
	unknown := two(stepAt("copy", "CopyH2DMBps", 0.9))
	unknown.Ceilings = map[string]StepCeiling{"CopyH2DMBps": {Unknown: "PCIe link of GPU 0 unknown"}}
	if j := Judge(Input{Catalog: cat, Steps: []StepOutcome{unknown}}); j.Verdict != sbv1.NodeInvalid || codes(j) != "NoReference:copy" ||
		!strings.Contains(j.Message(), "ceiling unknown: PCIe link of GPU 0 unknown") {
		t.Errorf("unknown ceiling: %s %v %q", j.Verdict, codes(j), j.Message())
	}
}

func TestCatalogRefusesMalformedRelativeReferences(t *testing.T) {
	for name, ref := range map[string]string{
		"both":       `{step: copy, figure: CopyH2DMBps, expected: 50000, minFractionOfCeiling: 0.8, source: s}`,
		"no model":   `{step: tcp, figure: LossPPM, minFractionOfCeiling: 0.8, source: s}`,
		"above one":  `{step: copy, figure: CopyH2DMBps, minFractionOfCeiling: 1.5, source: s}`,
		"below zero": `{step: copy, figure: CopyH2DMBps, minFractionOfCeiling: -0.5, expected: 1, source: s}`,
	} {
		_, err := ParseCatalog([]byte("version: 1\nclasses:\n- name: c\n  match: {gpuModel: X}\n  references:\n  - " + ref + "\n"))
		if err == nil {
			t.Errorf("%s: admitted", name)
		}
	}
	if _, err := ParseCatalog([]byte("version: 1\nderived: {minFractionOfCeiling: 0.7}\nclasses: []\n")); err == nil {
		t.Error("derived without a source: admitted")
	}
}

// Observe reads the headline cell's modelled figures against their ceilings from the bench's
// own environment: both copy directions over a Gen4 x16 link (28807 MB/s at MPS 256).
func TestObserveReadsTheStepsCeilings(t *testing.T) {
	sb := fixture.GPUCopyPeers("copy")
	sb.Status.Environment.GPUModel = "NVIDIA A10"
	sb.Status.Environment.GPUs = []sbv1.GPUEnvironment{{PCIAddress: "0000:1b:00.0", PCIeGeneration: 4, PCIeWidth: 16}}
	c := &sb.Status.CellResults[0]
	c.Headline = true
	c.RepeatResults = []sbv1.RepeatResult{{State: sbv1.CellValid, Copies: &sbv1.CopyResult{Sizes: []sbv1.CopySize{
		{Device: 0, Direction: "H2D", Bytes: 256 << 20, MegabytesPerSecond: 26000},
		{Device: 0, Direction: "D2H", Bytes: 256 << 20, MegabytesPerSecond: 20000}}}}}
	o := Observe(sb)
	h2d, d2h := o.Ceilings["CopyH2DMBps"], o.Ceilings["CopyD2HMBps"]
	if !h2d.Known() || int(h2d.Ceiling) != 28807 || h2d.String() != "0.903 of 28.8 GB/s (PCIe Gen4 x16 of GPU 0)" {
		t.Errorf("H2D %+v %q", h2d, h2d.String())
	}
	if !d2h.Known() || int(d2h.Fraction*1000) != 694 {
		t.Errorf("D2H %+v", d2h)
	}
	if _, ok := o.Ceilings["NCCLBusbwMBps"]; ok {
		t.Error("a copy bench has no bus bandwidth to read")
	}
}

// The step's record says it was held to a fraction of this node's ceiling.
func TestADerivedStepRecordSaysWhatItWasJudgedAgainst(t *testing.T) {
	j := Judge(Input{Catalog: derivedCatalog(t), Steps: []StepOutcome{stepAt("copy", "CopyH2DMBps", 0.5)}})
	if len(j.Steps) != 1 || !strings.Contains(j.Steps[0].JudgedAgainst, ">= 0.70 of its ceiling on this node (class derived-from-hardware, source derived from this node's hardware: test)") {
		t.Errorf("records %+v", j.Steps)
	}
}
