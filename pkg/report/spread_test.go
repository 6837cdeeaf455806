package report

import (
	"bytes"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// spreadBench is a TCP bench of four cells measured by the real aggregate: a steady cell, one
// exactly at the threshold, the noisy 1.60 ± 1.30 Gb/s cell, and one with a single repeat.
func spreadBench(percent int32) *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench("spread", "lab").Transport(sbv1.TransportTCP).Obj()
	sb.Spec.Run.NoisySpreadPercent = percent
	for i, rx := range [][]int64{{9500, 10000, 10500}, {900, 1000, 1100}, {3100, 800, 900}, {5000}} {
		c := sbv1.CellResult{Index: int32(i), Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: int32(i + 1)}, Attempts: 1}
		for r, v := range rx {
			c.RepeatResults = append(c.RepeatResults, sbv1.RepeatResult{Repeat: int32(r), State: sbv1.CellValid, RXMbps: v, TXMbps: v})
		}
		aggregate.Fill(&c)
		aggregate.FlagNoisy(&c, percent)
		sb.Status.CellResults = append(sb.Status.CellResults, c)
	}
	return sb
}

// The table's SPREAD % column is each cell's CV (5 %, 10 % at the threshold, 81.25 % noisy),
// a dash for one repeat, and a line under the table says what the flag means.
func TestTableShowsEachCellsSpreadAndFlagsTheNoisyOne(t *testing.T) {
	var out bytes.Buffer
	if err := WriteTable(&out, spreadBench(10)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	col := strings.Index(lines[0], "SPREAD %") // the header has no multi-byte runes: a rune index
	if col < 0 {
		t.Fatalf("no SPREAD %% column:\n%s", out.String())
	}
	for i, want := range []string{"5.0 ", "10.0 ", "81.2 noisy", "- "} {
		if got := string([]rune(lines[1+i])[col:]); !strings.HasPrefix(got, want) {
			t.Errorf("cell %d spread %q, want %q", i, got, want)
		}
	}
	note := "cell 2: noisy: RxMbps spreads more than run.noisySpreadPercent (10 %) over the Valid repeats, so its mean is uncertain; a flag, not a failure, unless a rule bounds RxMbpsCVMilliPercent"
	if !strings.Contains(out.String(), note) {
		t.Errorf("table lacks the note %q:\n%s", note, out.String())
	}

	out.Reset()
	_ = WriteTable(&out, spreadBench(4)) // a tighter bound flags the steady cell as well
	if !strings.Contains(out.String(), "cells 0, 1, 2: noisy: RxMbps spreads more than run.noisySpreadPercent (4 %)") {
		t.Errorf("at 4 %%:\n%s", out.String())
	}
}
