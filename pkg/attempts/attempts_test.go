package attempts

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func bench(attempts ...int32) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{}
	sb.Name, sb.Namespace = "b", "lab"
	for i, n := range attempts {
		sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{Index: int32(i), Attempts: n})
	}
	return sb
}

func record(sb *sbv1.SpiralBench, cell, attempt int32, repeats ...int32) sbv1.SpiralBenchAttemptResult {
	var rs []sbv1.RepeatResult
	for _, r := range repeats {
		rs = append(rs, sbv1.RepeatResult{Repeat: r, Attempt: attempt})
	}
	return *New(sb, cell, attempt, rs, "", false)
}

func repeatsOf(c sbv1.CellResult) []int32 {
	var out []int32
	for _, r := range c.RepeatResults {
		out = append(out, r.Repeat)
	}
	return out
}

func TestAttachPutsCountedAttemptsInAttemptOrder(t *testing.T) {
	sb := bench(2, 1)
	other := bench(1)
	other.Name = "other"
	items := []sbv1.SpiralBenchAttemptResult{
		record(sb, 0, 1, 2), record(sb, 1, 0, 0, 1, 2), record(sb, 0, 0, 0, 1),
		record(sb, 0, 2, 9),    // written, but its status write was lost: not counted yet
		record(other, 0, 0, 7), // another bench's
	}
	if missing := Attach(sb, items, all); missing != 0 {
		t.Errorf("missing %d, want 0", missing)
	}
	if got := repeatsOf(sb.Status.CellResults[0]); len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("cell 0 repeats %v, want attempts 0 then 1: [0 1 2]", got)
	}
	if got := repeatsOf(sb.Status.CellResults[1]); len(got) != 3 {
		t.Errorf("cell 1 repeats %v, want 3", got)
	}
}

func TestAttachCountsTheAttemptsItLacks(t *testing.T) {
	sb := bench(3, 0)
	if missing := Attach(sb, []sbv1.SpiralBenchAttemptResult{record(sb, 0, 1, 0)}, all); missing != 2 {
		t.Errorf("missing %d, want 2 (attempts 0 and 2 of cell 0)", missing)
	}
	// Attaching again replaces, never appends: a reconcile attaches each time it reads the bench.
	items := []sbv1.SpiralBenchAttemptResult{record(sb, 0, 0), record(sb, 0, 1, 0), record(sb, 0, 2, 1)}
	if missing := Attach(sb, items, all); missing != 0 || len(sb.Status.CellResults[0].RepeatResults) != 2 {
		t.Errorf("missing %d, repeats %v; want 0 and [0 1]", missing, repeatsOf(sb.Status.CellResults[0]))
	}
}

func all(*sbv1.SpiralBenchAttemptResult) bool { return true }

// The figures a bench does not store come from the attached repeats; a cell missing one of
// its attempts gets none, not the figures of part of its repeats.
func TestAttachDerivesTheFiguresABenchDoesNotStore(t *testing.T) {
	sb := bench(2, 2)
	measured := func(cell, attempt int32, tx ...int64) sbv1.SpiralBenchAttemptResult {
		var rs []sbv1.RepeatResult
		for i, v := range tx {
			rs = append(rs, sbv1.RepeatResult{Repeat: int32(i), Attempt: attempt, State: sbv1.CellValid, RXMbps: v, TXMbps: v + 10,
				LossPPM: 5, CPU: &sbv1.CPUBusy{MasterMilliPercent: -1, TXMilliPercent: 50000, RXMilliPercent: 70000},
				Wire: &sbv1.WireProof{Verdict: sbv1.WireUnverified}})
		}
		return *New(sb, cell, attempt, rs, "", false)
	}
	items := []sbv1.SpiralBenchAttemptResult{measured(0, 0, 900), measured(0, 1, 1100), measured(1, 0, 1000)}
	if missing := Attach(sb, items, all); missing != 1 {
		t.Fatalf("missing %d, want 1 (cell 1's attempt 1)", missing)
	}
	whole := sb.Status.CellResults[0]
	if whole.TXMbps == nil || whole.TXMbps.Mean != 1010 || whole.LossPPM != 5 || whole.CPU == nil || whole.CPU.RXMilliPercent != 70000 ||
		whole.Spread == nil || whole.Spread.Figure != "RxMbps" || whole.Spread.CVMilliPercent != 14142 {
		t.Errorf("cell 0 derived tx %+v loss %d cpu %+v spread %+v; want 1010, 5, rx 70000, RxMbps 14142", whole.TXMbps, whole.LossPPM, whole.CPU, whole.Spread)
	}
	if !whole.Noisy || whole.Wire != sbv1.WireUnverified {
		t.Errorf("cell 0 noisy %v wire %q; want noisy (14.1 %% over the default 10 %%) and Unverified", whole.Noisy, whole.Wire)
	}
	if part := sb.Status.CellResults[1]; part.TXMbps != nil || part.CPU != nil || part.Spread != nil || part.LossPPM != 0 || part.Noisy || part.Wire != "" {
		t.Errorf("cell 1 lacks an attempt but derived tx %+v cpu %+v spread %+v loss %d noisy %v wire %q", part.TXMbps, part.CPU, part.Spread, part.LossPPM, part.Noisy, part.Wire)
	}
	sb.Spec.Run.NoisySpreadPercent = 20
	Attach(sb, items, all)
	if sb.Status.CellResults[0].Noisy {
		t.Errorf("cell 0 flagged noisy at 14.1 %% against the spec's 20 %%")
	}
}

func TestAttachReadsOnlyTrustedRecordsUnderTheirOwnName(t *testing.T) {
	sb := bench(1)
	renamed := record(sb, 0, 0, 5)
	renamed.Name = "b-forged" // says it is attempt 0 of cell 0 under another name
	refused := record(sb, 0, 0, 6)
	refused.Labels["who"] = "someone else"
	trust := func(a *sbv1.SpiralBenchAttemptResult) bool { return a.Labels["who"] == "" }
	if missing := Attach(sb, []sbv1.SpiralBenchAttemptResult{renamed, refused}, trust); missing != 1 || len(sb.Status.CellResults[0].RepeatResults) != 0 {
		t.Errorf("missing %d, repeats %v; want 1 and none: neither record may be read", missing, repeatsOf(sb.Status.CellResults[0]))
	}
}

func TestNameFollowsBenchCellAndAttempt(t *testing.T) {
	if n := Name("tcp-sweep", 12, 3); n != "tcp-sweep-c12-a3" {
		t.Errorf("name %q", n)
	}
}
