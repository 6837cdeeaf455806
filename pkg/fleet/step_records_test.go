package fleet

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// cpuOnlyQuick is the Quick suite on a node without GPUs: copy and nccl never ran, tcp
// passed at 2955 Mb/s.
func cpuOnlyQuick() Input {
	return Input{Catalog: BuiltinCatalog(), HistoryFigure: "RxMbps", Steps: []StepOutcome{
		{Step: "copy", State: StepNoGPUState, Reason: "no GPU on this node"},
		{Step: "nccl", State: StepNoGPUState, Reason: "no GPU on this node"},
		{Step: "tcp", State: StepPassedState, Bench: "pool-1-n1-tcp", Observation: Observation{Figures: map[string]float64{"RxMbps": 2955.4, "TxMbps": 2960}}},
	}}
}

func recordOf(t *testing.T, j Judgement, step string) sbv1.FleetStepRecord {
	t.Helper()
	for _, r := range j.Steps {
		if r.Name == step {
			return r
		}
	}
	t.Fatalf("no record of %s in %+v", step, j.Steps)
	return sbv1.FleetStepRecord{}
}

// The user's case: a Quick suite Passed on a CPU-only node. The record says copy and nccl
// were excused (NoGPU, and the class excuses them) and tcp passed with its figure, judged
// against no reference because the class expects nothing of it.
func TestStepRecordsOfACPUOnlyNodeShowExcusedStepsAndWhatTcpWasJudgedAgainst(t *testing.T) {
	j := Judge(cpuOnlyQuick())
	if j.Verdict != sbv1.NodePassed || j.Class != "cpu-only" || len(j.Steps) != 3 {
		t.Fatalf("%s %s %+v", j.Verdict, j.Class, j.Steps)
	}
	for _, step := range []string{"copy", "nccl"} {
		r := recordOf(t, j, step)
		if r.State != sbv1.StepRecordExcused || !strings.Contains(r.Reason, "NoGPU") || !strings.Contains(r.Reason, "class cpu-only excuses "+step) ||
			r.Value != nil || r.JudgedAgainst != "" || r.Bench != "" {
			t.Errorf("%s: %+v", step, r)
		}
	}
	tcp := recordOf(t, j, "tcp")
	if tcp.State != sbv1.StepRecordPassed || tcp.Figure != "RxMbps" || tcp.Value == nil || *tcp.Value != 2955 || tcp.Unit != "Mb/s" ||
		tcp.Bench != "pool-1-n1-tcp" || tcp.JudgedAgainst != "no reference: class cpu-only expects nothing for this step" {
		t.Errorf("tcp: %+v", tcp)
	}
	if got := StepsSummary(j.Steps); got != "3/3 passed, 2 excused" {
		t.Errorf("summary %q", got)
	}
}

// Each way a step ends reaches its record with the words behind it, and the summary counts
// them; a GPU step without GPUs that no class excuses is NoGPU, not Excused.
func TestStepRecordsCarryEveryState(t *testing.T) {
	in := Input{Steps: []StepOutcome{
		{Step: "a", State: StepPassedState, Reason: "cells 2 failed, allowed"},
		{Step: "b", State: StepFailedState, Reason: "rule rx-floor broke"},
		{Step: "c", State: StepInvalidState, Reason: "cells invalid"},
		{Step: "d", State: StepDeadlineExceededState, Reason: "ran past deadlineSeconds 10"},
		{Step: "e", State: StepSkippedState, Reason: "after b did not pass"},
		{Step: "f", State: StepNoGPUState},
		{Step: "g", State: StepMissingState, Reason: "no partner"},
		{Step: "h"},
	}}
	j := Judge(in)
	want := map[string]struct {
		state  sbv1.StepRecordState
		reason string
	}{
		"a": {sbv1.StepRecordPassed, "cells 2 failed, allowed"}, "b": {sbv1.StepRecordFailed, "rule rx-floor broke"},
		"c": {sbv1.StepRecordInvalid, "cells invalid"}, "d": {sbv1.StepRecordDeadlineExceeded, "ran past deadlineSeconds 10"},
		"e": {sbv1.StepRecordSkipped, "after b did not pass"}, "f": {sbv1.StepRecordNoGPU, "no GPU on this node, and no class excuses f"},
		"g": {sbv1.StepRecordMissing, "no partner"}, "h": {sbv1.StepRecordMissing, "no result"},
	}
	for step, w := range want {
		if r := recordOf(t, j, step); r.State != w.state || r.Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", step, r.State, r.Reason, w.state, w.reason)
		}
	}
	if r := recordOf(t, j, "a"); r.JudgedAgainst != "no reference: the fleet sets no spec.references" {
		t.Errorf("without a catalog: %q", r.JudgedAgainst)
	}
	if got := StepsSummary(j.Steps); got != "1/8 passed, 1 failed, 1 invalid, 1 past deadline, 1 skipped, 1 no GPU, 2 missing" {
		t.Errorf("summary %q", got)
	}
	// On a GPU class, a step without GPUs is not excused: the class expects it.
	in = Input{Catalog: BuiltinCatalog(), Steps: goodH200()}
	in.Steps[1] = StepOutcome{Step: "nccl", State: StepNoGPUState}
	if r := recordOf(t, Judge(in), "nccl"); r.State != sbv1.StepRecordNoGPU || r.Reason != "no GPU on this node, and class 4xH200-NV18 does not excuse nccl" {
		t.Errorf("nccl on an H200 class: %+v", r)
	}
}

// A step with a class reference shows the reference it was held to with its source; one whose
// bench passed but whose figure missed the reference is Failed in its record as in the verdict.
func TestStepRecordsShowTheReferenceAndFailAStepBelowIt(t *testing.T) {
	in := Input{Catalog: BuiltinCatalog(), Steps: goodH200()}
	in.Steps[1].Bench = "pool-1-h1-nccl"
	j := Judge(in)
	nccl := recordOf(t, j, "nccl")
	if nccl.State != sbv1.StepRecordPassed || nccl.Figure != "NCCLBusbwMBps" || *nccl.Value != 350000 || nccl.Unit != "MB/s" ||
		nccl.JudgedAgainst != "353060 MB/s ±10% (class 4xH200-NV18, source docs/benchmarks/nccl.md 'Four GPUs of one host')" {
		t.Errorf("nccl: %+v", nccl)
	}
	copyRec := recordOf(t, j, "copy")
	if copyRec.Figure != "CopyH2DMBps" || *copyRec.Value != 55000 ||
		copyRec.JudgedAgainst != "CopyH2DMBps 55300 MB/s ±10%, CopyD2HMBps 55300 MB/s ±10% (class 4xH200-NV18, source docs/benchmarks/gpucopy.md)" {
		t.Errorf("copy: %+v", copyRec)
	}
	if tcp := recordOf(t, j, "tcp"); tcp.Figure != "" || tcp.Value != nil || tcp.JudgedAgainst != "no reference: class 4xH200-NV18 expects nothing for this step" {
		t.Errorf("tcp: %+v", tcp)
	}

	in.Steps[1].Figures["NCCLBusbwMBps"] = 200000
	j = Judge(in)
	nccl = recordOf(t, j, "nccl")
	if j.Verdict != sbv1.NodeFailed || nccl.State != sbv1.StepRecordFailed || !strings.HasPrefix(nccl.Reason, "BelowReference: NCCLBusbwMBps 200000 MB/s vs reference 353060") {
		t.Errorf("nccl below its reference: %s %+v", j.Verdict, nccl)
	}
	if got := StepsSummary(j.Steps); got != "2/3 passed, 1 failed" {
		t.Errorf("summary %q", got)
	}
	delete(in.Steps[1].Figures, "NCCLBusbwMBps")
	if nccl = recordOf(t, Judge(in), "nccl"); nccl.State != sbv1.StepRecordInvalid || nccl.Figure != "NCCLBusbwMBps" || nccl.Value != nil {
		t.Errorf("nccl without its figure: %+v", nccl)
	}
}

// The history baseline is named on the step it was compared on (the first with the fleet's
// metric); a regression fails that step.
func TestStepRecordsShowTheHistoryBaseline(t *testing.T) {
	in := cpuOnlyQuick()
	in.History = &Regression{Samples: 6, Mean: 2950, Std: 12, Threshold: 2900}
	tcp := recordOf(t, Judge(in), "tcp")
	if tcp.State != sbv1.StepRecordPassed ||
		tcp.JudgedAgainst != "no reference: class cpu-only expects nothing for this step; history: mean 2950 Mb/s, std 12, bound 2900 (6 samples)" {
		t.Errorf("tcp with history: %+v", tcp)
	}
	in.History = &Regression{Samples: 1, Mean: 2950}
	if tcp = recordOf(t, Judge(in), "tcp"); !strings.HasSuffix(tcp.JudgedAgainst, "history: too few comparable runs to compare (1 samples)") {
		t.Errorf("tcp with a short history: %q", tcp.JudgedAgainst)
	}
	in.History = &Regression{Samples: 6, Mean: 2950, Std: 12, Threshold: 2900, Regressed: true}
	in.HistoryDetail = "regressed: 2500 vs its history 2950"
	in.Steps[2].Figures["RxMbps"] = 2500
	j := Judge(in)
	if tcp = recordOf(t, j, "tcp"); j.Verdict != sbv1.NodeFailed || tcp.State != sbv1.StepRecordFailed || tcp.Reason != "BelowHistory: regressed: 2500 vs its history 2950" {
		t.Errorf("tcp regressed: %s %+v", j.Verdict, tcp)
	}
}

// A judgement of prior reasons alone (a straggler found at the round's end) records no steps,
// so the row keeps those it had.
func TestJudgingPriorReasonsRecordsNoSteps(t *testing.T) {
	if j := Judge(Input{Prior: []Reason{{Code: StepSkipped, Step: "tcp"}}, Straggler: true}); j.Steps != nil {
		t.Errorf("%+v", j.Steps)
	}
}

// The round summary counts each step's outcomes over the nodes, in suite order.
func TestStepCountsOverARound(t *testing.T) {
	a, b := Judge(cpuOnlyQuick()), cpuOnlyQuick()
	b.Steps[2] = StepOutcome{Step: "tcp", State: StepFailedState, Reason: "rule broke"}
	nodes := []sbv1.FleetNode{{Name: "a", Steps: a.Steps}, {Name: "b", Steps: Judge(b).Steps}, {Name: "pending"}}
	got := StepCounts(nodes)
	want := []StepCount{{Step: "copy", Excused: 2}, {Step: "nccl", Excused: 2}, {Step: "tcp", Passed: 1, Failed: 1}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%+v, want %+v", got[i], want[i])
		}
	}
}

// A node's steps fit its record: the longest built-in suite with a suite's own steps (at most
// 12, SuiteSpec.Steps's MaxItems) appended, none replacing a built-in one.
func TestTheLongestSuiteFitsTheStepRecords(t *testing.T) {
	for _, name := range []sbv1.SuiteName{sbv1.SuiteQuick, sbv1.SuiteStandard, sbv1.SuiteExtended} {
		if n := len(BuiltinSuite(name)) + 12; n > sbv1.MaxSuiteSteps {
			t.Errorf("suite %s with 12 own steps has %d steps, the record holds %d", name, n, sbv1.MaxSuiteSteps)
		}
	}
}

// A check's figures are what its JSON says: a name the figure table does not know is not
// recorded (it could be longer than the record allows), a known one is, with its unit.
func TestStepRecordsKeepOnlyKnownFiguresOfACheck(t *testing.T) {
	long := strings.Repeat("x", 60)
	in := Input{Steps: []StepOutcome{
		{Step: "diag", State: StepPassedState, Bench: "diag-pod", Observation: Observation{Figures: map[string]float64{long: 1}}},
		{Step: "lat", State: StepPassedState, Observation: Observation{Figures: map[string]float64{long: 1, "LatencyP99Nanoseconds": 8200}}},
	}}
	j := Judge(in)
	if r := recordOf(t, j, "diag"); r.Figure != "" || r.Value != nil || r.Bench != "diag-pod" {
		t.Errorf("diag: %+v", r)
	}
	if r := recordOf(t, j, "lat"); r.Figure != "LatencyP99Nanoseconds" || *r.Value != 8200 || r.Unit != "ns" {
		t.Errorf("lat: %+v", r)
	}
}
