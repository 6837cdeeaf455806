package runstore

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// A run written by pkg/report and read back is the same run: cells, aggregates, environment,
// run id and verdict.
func TestRoundTripThroughTheBucketFiles(t *testing.T) {
	for _, sb := range []*sbv1.SpiralBench{fixture.TCPSweep("tcp", 1, true), fixture.UDPWorkloads("wl"), fixture.RoCELatency("lat")} {
		files, err := report.Files(sb)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromFiles(files)
		if err != nil {
			t.Fatal(err)
		}
		if report.RunID(got) != report.RunID(sb) || got.Name != sb.Name || got.Namespace != sb.Namespace {
			t.Errorf("%s: read back as %s/%s@%s", sb.Name, got.Namespace, got.Name, report.RunID(got))
		}
		for i := range sb.Status.CellResults {
			w, g := sb.Status.CellResults[i], got.Status.CellResults[i]
			w.StartTime, w.CompletionTime = nil, nil // not in the bucket's files
			if w.Repeats == 0 {
				w.Attempts = 0 // results.jsonl has no attempt count for a cell without repeats
			}
			if !reflect.DeepEqual(w, g) {
				t.Errorf("%s cell %d:\n got %+v\nwant %+v", sb.Name, i, g, w)
			}
		}
		if !reflect.DeepEqual(got.Status.Environment, sb.Status.Environment) || got.Status.Cells != sb.Status.Cells {
			t.Errorf("%s: environment %+v cells %+v", sb.Name, got.Status.Environment, got.Status.Cells)
		}
		w, g := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed), meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionPassed)
		if w.Status != g.Status || w.Message != g.Message {
			t.Errorf("%s: verdict %s %q, want %s %q", sb.Name, g.Status, g.Message, w.Status, w.Message)
		}
	}
}

func TestMissingFileIsNamed(t *testing.T) {
	files, _ := report.Files(fixture.TCPSweep("tcp", 1, false))
	delete(files, "spec.json")
	if _, err := FromFiles(files); err == nil || err.Error() != "the run has no spec.json" {
		t.Fatalf("err %v", err)
	}
}

// A run uploaded before verdict.json was written still reads back; without the baseline's
// figures its verdict cannot vouch for a baseline comparison, and says so.
func TestRunWithoutVerdictFile(t *testing.T) {
	sb := fixture.TCPSweep("tcp", 1, false)
	files, err := report.Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	delete(files, report.VerdictFile)
	got, err := FromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if p := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionPassed); p.Status != "True" {
		t.Errorf("no baseline, every cell Valid: %+v", p)
	}
	sb.Spec.Acceptance.Baseline = &sbv1.BaselineSpec{SpiralBenchName: "before"}
	if files, err = report.Files(sb); err != nil {
		t.Fatal(err)
	}
	delete(files, report.VerdictFile)
	got, _ = FromFiles(files)
	if p := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionPassed); p.Status != "False" || !strings.Contains(p.Message, "baseline before: no figures of it were recorded") {
		t.Errorf("a baseline without figures: %+v", p)
	}
}
