package fleet

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

var h200x4 = Facts{GPUModel: "NVIDIA H200", GPUCount: 4, PCIeGen: 5, PCIeWidth: 16}

func passed(step string, figures map[string]float64) StepOutcome {
	return StepOutcome{Step: step, State: StepPassedState, Observation: Observation{Figures: figures, Facts: h200x4, PeerLinks: []string{"NV18"}}}
}

func goodH200() []StepOutcome {
	return []StepOutcome{
		passed("copy", map[string]float64{"CopyH2DMBps": 55000, "CopyD2HMBps": 55100}),
		passed("nccl", map[string]float64{"NCCLBusbwMBps": 350000}),
		{Step: "tcp", State: StepPassedState},
	}
}

func codes(j Judgement) string {
	var out []string
	for _, r := range j.Reasons {
		out = append(out, r.Label())
	}
	return strings.Join(out, ",")
}

// Every reason code is reachable from the judge's inputs, and each decides the verdict the
// table in docs/qualification.md gives it.
func TestJudgeReachesEveryReasonCode(t *testing.T) {
	cat := BuiltinCatalog()
	cases := map[string]struct {
		in      func(in *Input)
		verdict sbv1.NodeVerdict
		code    string
	}{
		"all good": {func(in *Input) {}, sbv1.NodePassed, ""},
		"step failed": {func(in *Input) { in.Steps[2] = StepOutcome{Step: "tcp", State: StepFailedState, Reason: "broken: rx"} },
			sbv1.NodeFailed, "StepFailed:tcp"},
		"step invalid": {func(in *Input) { in.Steps[2] = StepOutcome{Step: "tcp", State: StepInvalidState} }, sbv1.NodeInvalid, "StepInvalid:tcp"},
		"step missing": {func(in *Input) { in.Steps[2] = StepOutcome{Step: "tcp"} }, sbv1.NodeInvalid, "StepMissing:tcp"},
		"step skipped after a stop": {func(in *Input) {
			in.Steps[1] = StepOutcome{Step: "nccl", State: StepFailedState}
			in.Steps[2] = StepOutcome{Step: "tcp", State: StepSkippedState}
		}, sbv1.NodeFailed, "StepSkipped:tcp"},
		"deadline":              {func(in *Input) { in.Steps[2] = StepOutcome{Step: "tcp", State: StepDeadlineExceededState} }, sbv1.NodeFailed, "StepDeadlineExceeded:tcp"},
		"no GPU on a GPU class": {func(in *Input) { in.Steps[1] = StepOutcome{Step: "nccl", State: StepNoGPUState} }, sbv1.NodeInvalid, "NoGPU:nccl"},
		"no reference": {func(in *Input) {
			for i := range in.Steps {
				in.Steps[i].Facts = Facts{GPUModel: "NVIDIA A10", GPUCount: 1}
			}
		}, sbv1.NodeInvalid, "NoReference"},
		"unknown forced class": {func(in *Input) { in.Class = "nope" }, sbv1.NodeInvalid, "NoReference"},
		"copy below reference": {func(in *Input) { in.Steps[0].Figures["CopyH2DMBps"] = 26000 }, sbv1.NodeFailed, "BelowReference:copy"},
		"figure missing":       {func(in *Input) { delete(in.Steps[1].Figures, "NCCLBusbwMBps") }, sbv1.NodeInvalid, "StepMissing:nccl"},
		"PCIe below":           {func(in *Input) { in.Steps[0].Facts.PCIeGen, in.Steps[0].Facts.PCIeWidth = 4, 16 }, sbv1.NodeFailed, "PCIeBelowReference"},
		"peer link on PCIe":    {func(in *Input) { in.Steps[0].PeerLinks = []string{"NV18", "SYS"} }, sbv1.NodeFailed, "PeerLinkNotNVLink:copy"},
		"NCCL on sockets":      {func(in *Input) { in.Steps[1].NCCLTransports = []string{"NET/Socket"} }, sbv1.NodeFailed, "NCCLSocketFallback:nccl"},
		"wire not crossed":     {func(in *Input) { in.Steps[2].WireNotCrossed = true }, sbv1.NodeFailed, "WireNotCrossed:tcp"},
		"PCIe downtrained": {func(in *Input) {
			in.Steps[0].Facts.Hardware.GPUs = []GPUFact{{Address: "0000:1b:00.0", Gen: 4, MaxGen: 5, Width: 16, MaxWidth: 16}}
		}, sbv1.NodeFailed, "PCIeDowntrained"},
		"NVLink down": {func(in *Input) {
			in.Steps[0].Facts.Hardware.GPUs = []GPUFact{{NVLinks: 18, NVLinksActive: 18}, {NVLinks: 18, NVLinksActive: 12}}
		}, sbv1.NodeFailed, "NVLinkDown"},
		"GPU missing": {func(in *Input) {
			seen := int32(7)
			in.Steps[0].Facts.Hardware = Hardware{GPUsSeen: &seen, GPUsRequested: 8}
			in.NodeFacts.GPUCount = 8
		}, sbv1.NodeFailed, "GPUMissing"},
		"NIC speed low": {func(in *Input) {
			in.Steps[2].Facts.Hardware.NICs = []NICFact{{Interface: "enp1s0f0", SpeedMbps: 10000, MaxSpeedMbps: 100000}}
		}, sbv1.NodeFailed, "NICSpeedLow"},
		"below history": {func(in *Input) {
			in.History = &Regression{Samples: 5, Mean: 100, Std: 1, Threshold: 97, Regressed: true}
		},
			sbv1.NodeFailed, "BelowHistory"},
		"straggler": {func(in *Input) { in.Straggler = true }, sbv1.NodeFailed, "Straggler"},
		"degrading": {func(in *Input) { in.Degrading = true }, sbv1.NodePassed, "Degrading"},
	}
	seen := map[ReasonCode]bool{}
	for name, c := range cases {
		in := Input{Steps: goodH200(), Catalog: cat}
		c.in(&in)
		j := Judge(in)
		got := codes(j)
		if j.Verdict != c.verdict || (c.code == "" && got != "") || !strings.Contains(","+got+",", ","+c.code+",") {
			t.Errorf("%s: %s %q, want %s with %q", name, j.Verdict, got, c.verdict, c.code)
		}
		for _, r := range j.Reasons {
			seen[r.Code] = true
		}
	}
	// AboveReference: a lower-is-better figure (loss) above its class reference.
	spark := Judge(Input{Catalog: cat, Steps: []StepOutcome{{Step: "raw", State: StepPassedState,
		Observation: Observation{Facts: Facts{GPUModel: "NVIDIA GB10", GPUCount: 1}, Figures: map[string]float64{"RxMbps": 98000, "LossPPM": 12}}}}})
	if spark.Verdict != sbv1.NodeFailed || spark.Class != "DGX-Spark-GB10-CX7" || !strings.Contains(codes(spark), "AboveReference:raw") {
		t.Errorf("spark: %s %s %q", spark.Verdict, spark.Class, codes(spark))
	}
	for _, r := range spark.Reasons {
		seen[r.Code] = true
	}
	for _, c := range AllReasonCodes {
		if !seen[c] {
			t.Errorf("reason code %s is not reached by any case", c)
		}
	}
}

// The CPU-only class excuses the GPU steps ("no GPU on this node") and passes the node when
// the socket step passed: what the local cluster's e2e suite relies on.
func TestCPUOnlyClassExcusesGPUSteps(t *testing.T) {
	j := Judge(Input{Catalog: BuiltinCatalog(), Steps: []StepOutcome{
		{Step: "copy", State: StepNoGPUState}, {Step: "nccl", State: StepNoGPUState}, {Step: "tcp", State: StepPassedState}}})
	if j.Verdict != sbv1.NodePassed || j.Class != "cpu-only" || len(j.Reasons) != 0 {
		t.Fatalf("%s %s %q", j.Verdict, j.Class, codes(j))
	}
}

// Without a catalog, a node is judged by its steps alone (a fleet without spec.references).
func TestJudgeWithoutCatalogNeedsNoClass(t *testing.T) {
	j := Judge(Input{Steps: []StepOutcome{{State: StepPassedState}}})
	if j.Verdict != sbv1.NodePassed || j.Class != "" {
		t.Fatalf("%s %q", j.Verdict, codes(j))
	}
}

func TestVerdictOfPutsFailedBeforeInvalid(t *testing.T) {
	if v := VerdictOf([]Reason{{Code: NoReference}, {Code: StepFailed}}); v != sbv1.NodeFailed {
		t.Fatalf("%s", v)
	}
	if v := VerdictOf([]Reason{{Code: StepSkipped}}); v != sbv1.NodePassed {
		t.Fatalf("StepSkipped alone explains, it does not decide: %s", v)
	}
	if r := ParseReason("BelowReference:copy"); r.Code != BelowReference || r.Step != "copy" {
		t.Fatalf("%+v", r)
	}
}

// A step's outcome is the bench's: it passes exactly when the bench's Passed is True.
func TestBenchOutcomeNamesWhatDecidedIt(t *testing.T) {
	valid := sbv1.CellResult{Index: 0, State: sbv1.CellValid, Repeats: 1}
	cases := []struct {
		sb     *sbv1.SpiralBench
		want   StepState
		reason string
	}{
		{sbtesting.DecidedBench(nil, valid), StepPassedState, ""},
		{sbtesting.FinishedBench(sbv1.PhaseCompleted, metav1.ConditionFalse, valid), StepFailedState, "line-rate"},
		{sbtesting.DecidedBench(nil, valid, sbv1.CellResult{Index: 1, State: sbv1.CellFailed, Message: "no pod", Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 4}}),
			StepFailedState, "1 of 2 cells failed: cell 1 (8000 B x 4 pairs): no pod"},
		{sbtesting.DecidedBench(nil, sbv1.CellResult{Index: 0, State: sbv1.CellInvalid, Message: "counters disagree"}), StepInvalidState, "counters disagree"},
		{sbtesting.DecidedBench(&sbv1.AcceptanceSpec{AllowFailedCells: true}, valid, sbv1.CellResult{Index: 1, State: sbv1.CellFailed, Message: "no pod"}),
			StepPassedState, "allowFailedCells: 1 of 2 cells failed"},
		{sbtesting.FinishedBench(sbv1.PhaseFailed, metav1.ConditionFalse), StepInvalidState, "could not run: invalid spec"},
	}
	for i, c := range cases {
		got, reason := BenchOutcome(c.sb)
		if got != c.want || !strings.Contains(reason, c.reason) {
			t.Errorf("case %d: %s %q, want %s containing %q", i, got, reason, c.want, c.reason)
		}
	}
}

// A step without a result says why when its walk knew (a Pair step no node could run with),
// else "no result".
func TestStepMissingSaysWhy(t *testing.T) {
	for reason, want := range map[string]string{
		"": "tcp: no result",
		"no partner this round, and no node passed to run it with": "tcp: no partner this round, and no node passed to run it with",
	} {
		j := Judge(Input{Steps: []StepOutcome{{Step: "tcp", State: StepMissingState, Reason: reason}}})
		if j.Verdict != sbv1.NodeInvalid || codes(j) != "StepMissing:tcp" || j.Message() != want {
			t.Errorf("reason %q: %s %s %q, want Invalid StepMissing:tcp %q", reason, j.Verdict, codes(j), j.Message(), want)
		}
	}
}

// The round's end judges a decided row again with a straggler: its earlier reasons count by
// their codes, so a row Invalid before stays Invalid unless the straggler fails it, and a
// straggler fails a passed row.
func TestJudgeAgainWithPriorReasonsAndAStraggler(t *testing.T) {
	passedWithNote := []Reason{ParseReason("StepSkipped:nccl")}
	j := Judge(Input{Prior: passedWithNote, Straggler: true, StragglerDetail: "straggler: 900 vs median 1000"})
	if j.Verdict != sbv1.NodeFailed || len(j.Reasons) != 2 || j.Reasons[1].Code != Straggler || j.Message() != "straggler: 900 vs median 1000" {
		t.Fatalf("a passed row found straggling: %+v, %q", j, j.Message())
	}
	if j := Judge(Input{Prior: []Reason{ParseReason("StepInvalid:copy-a-rather-long-step-name-cut-at-the-label-le")}}); j.Verdict != sbv1.NodeInvalid {
		t.Fatalf("a prior reason counts by its code, even cut: %s", j.Verdict)
	}
	if j := Judge(Input{Prior: passedWithNote}); j.Verdict != sbv1.NodePassed {
		t.Fatalf("no straggler: the prior verdict stands, got %s", j.Verdict)
	}
}
