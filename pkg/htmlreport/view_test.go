package htmlreport

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The TCP sweep reads as DAQIRI's TCP table: a row per payload, a column per pair count, the
// failed cell saying so rather than showing 0 Gb/s.
func TestPivotIsDAQIRIsTable(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, true)
	ps := pivots(sb.Status.CellResults)
	if len(ps) != 1 {
		t.Fatalf("%d pivots, want 1", len(ps))
	}
	p := ps[0]
	if p.Column != "pairs" || strings.Join(p.Columns, ",") != "1,2,4" {
		t.Errorf("columns %s %v, want pairs 1,2,4", p.Column, p.Columns)
	}
	var payloads []string
	for _, r := range p.Rows {
		payloads = append(payloads, r.Payload)
	}
	if strings.Join(payloads, ",") != "1000 B,8000 B,1 MiB" {
		t.Errorf("rows %v, want 1000 B, 8000 B, 1 MiB", payloads)
	}
	last := p.Rows[2].Cells[2]
	if last.Missing != "failed: no measurement" || last.Value != "" {
		t.Errorf("1 MiB x 4 pairs (failed) shows %+v", last)
	}
	first := p.Rows[0].Cells[0]
	if !strings.Contains(first.Value, " ± ") || !strings.HasPrefix(first.Loss, "loss ") {
		t.Errorf("1000 B x 1 pair shows %+v, want mean ± std and its loss", first)
	}
}

func TestAMessageThatIsJSONReadsAsItsReason(t *testing.T) {
	msg := `{"event":"result","state":"Invalid","reason":"0 bytes crossed the wire: rx_bytes_phy did not move"}`
	if got := readable(msg); got != "0 bytes crossed the wire: rx_bytes_phy did not move" {
		t.Errorf("readable = %q", got)
	}
	if got := readable("client pod: OOMKilled"); got != "client pod: OOMKilled" {
		t.Errorf("plain text changed: %q", got)
	}
}

func TestRulesReadAsSentences(t *testing.T) {
	pairs := int32(4)
	r := sbv1.AcceptanceRule{Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 90000}
	if got := ruleCheck(r); got != "RxMbps ≥ 90000 (90 Gb/s)" {
		t.Errorf("ruleCheck = %q", got)
	}
	for sel, want := range map[*sbv1.CellSelector]string{
		{}:                          "the headline cell",
		{Scope: sbv1.CellScopeEach}: "each cell",
		{Scope: sbv1.CellScopeEach, Pairs: &pairs}: "each cell with 4 pairs",
	} {
		if got := ruleCells(*sel); got != want {
			t.Errorf("ruleCells(%+v) = %q, want %q", *sel, got, want)
		}
	}
}

func TestTheLinksMTUIsSetBesideTheSpecs(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Spec.Topology.MTU = 9000
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth0", MTU: 1500}}
	if got := mtuNote(sb); !strings.Contains(got, "asks for 9000") || !strings.Contains(got, "eth0 1500") {
		t.Errorf("mtuNote = %q", got)
	}
	sb.Status.Environment.NICs[0].MTU = 9000
	if got := mtuNote(sb); got != "" {
		t.Errorf("matching MTUs need no note: %q", got)
	}
}

// Every environment key is on the page, with "not captured" for what the run did not record;
// columns no cell has a figure for are left out.
func TestPageNamesEveryKeyAndLeavesEmptyColumnsOut(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, true)
	page, err := Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	sb.Status.Environment.CPUModel, sb.Status.Environment.CPUs, sb.Status.Environment.CPUsUsable = "AMD EPYC 9454", 96, 8
	withCPU, err := Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(withCPU), "AMD EPYC 9454, 96 CPUs (8 usable by the pod)") {
		t.Error("the page does not name the node's CPU model and counts")
	}
	for _, want := range []string{"cudaVersion", "not captured", `href="runs.csv"`, `href="results.jsonl"`, `id="pivot-0"`, `id="repeats"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(text, "<th>GPU SM %</th>") || strings.Contains(text, "<th>p50 / p99 µs</th>") {
		t.Error("a TCP bandwidth sweep without GPU work shows empty GPU or latency columns")
	}
}
