package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// nodeResult is a decided row of a Quick suite on a CPU-only node as the fleet writes it:
// judged by fleet.Judge, with tcp at tcpMbps.
func nodeResult(round int32, tcpMbps float64) sbv1.SpiralBenchNodeResult {
	j := fleet.Judge(fleet.Input{Catalog: fleet.BuiltinCatalog(), HistoryFigure: "RxMbps", Steps: []fleet.StepOutcome{
		{Step: "copy", State: fleet.StepNoGPUState},
		{Step: "nccl", State: fleet.StepNoGPUState},
		{Step: "tcp", State: fleet.StepPassedState, Bench: "pool-1-cpu-1-tcp", Observation: fleet.Observation{Figures: map[string]float64{"RxMbps": tcpMbps}}},
	}})
	value := int64(tcpMbps)
	return sbv1.SpiralBenchNodeResult{Fleet: "pool", Round: round, Result: sbv1.FleetNode{Name: "cpu-1", Verdict: j.Verdict, Class: j.Class,
		Step: "tcp", Bench: "pool-1-cpu-1-tcp", Value: &value, Steps: j.Steps, StepsSummary: fleet.StepsSummary(j.Steps)}}
}

// `sbctl fleet NODE` prints the node's rounds with their steps summary, then its newest
// round step by step: the excused GPU steps with why, tcp with its figure, what it was judged
// against and its bench.
func TestFleetNodePrintsEveryStepOfTheNewestRound(t *testing.T) {
	rows := []sbv1.SpiralBenchNodeResult{nodeResult(1, 1000), nodeResult(2, 2955)}
	var out bytes.Buffer
	if err := renderNodeHistory(&out, rows, "table"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 9 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	if f := strings.Fields(lines[0]); strings.Join(f[:5], " ") != "FLEET ROUND VERDICT STEPS STEP" {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasPrefix(strings.Join(strings.Fields(lines[2]), " "), "pool 2 Passed 3/3 passed, 2 excused tcp") {
		t.Errorf("round 2 %q", lines[2])
	}
	if lines[4] != "Steps of fleet pool round 2 (3/3 passed, 2 excused):" {
		t.Errorf("steps title %q", lines[4])
	}
	if f := strings.Fields(lines[5]); strings.Join(f, " ") != "STEP STATE FIGURE VALUE JUDGED AGAINST BENCH REASON" {
		t.Errorf("steps header %q", lines[5])
	}
	for i, want := range []string{
		"copy Excused NoGPU: no GPU on this node, and class cpu-only excuses copy",
		"nccl Excused NoGPU: no GPU on this node, and class cpu-only excuses nccl",
		"tcp Passed RxMbps 2955 Mb/s no reference: class cpu-only expects nothing for this step pool-1-cpu-1-tcp",
	} {
		if got := strings.Join(strings.Fields(lines[6+i]), " "); got != want {
			t.Errorf("step line %d %q, want %q", i, got, want)
		}
	}
	// Columns line up: tcp's judged-against text starts where the header says.
	if h, tcp := strings.Index(lines[5], "JUDGED AGAINST"), strings.Index(lines[8], "no reference"); h != tcp {
		t.Errorf("JUDGED AGAINST at %d, tcp's at %d:\n%s", h, tcp, out.String())
	}

	out.Reset()
	if err := renderNodeHistory(&out, rows, "json"); err != nil {
		t.Fatal(err)
	}
	var back []sbv1.SpiralBenchNodeResult
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back) != 2 || len(back[0].Result.Steps) != 3 || *back[0].Result.Steps[2].Value != 1000 {
		t.Fatalf("json: %v %+v", err, back)
	}
}
