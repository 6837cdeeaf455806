package benchctrl

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/runstore"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The verdict of a run read back from the bucket is the live one, baseline comparison and
// failed cells included, though the baseline bench is gone by then.
func TestRunReadBackFromTheBucketHasTheLiveVerdict(t *testing.T) {
	base := fixture.TCPSweep("before", 1, false)
	for _, tc := range []struct {
		name  string
		after *sbv1.SpiralBench
		want  string
		says  string
	}{
		{"regressed", fixture.TCPSweep("after", 0.9, false), sbv1.ReasonRulesBroken, "more than 5% below the baseline's"},
		{"held", fixture.TCPSweep("after", 1, false), sbv1.ReasonRulesHeld, "baseline before: 9 cells within 5%"},
		{"failed cell", fixture.TCPSweep("after", 1, true), sbv1.ReasonCellsFailed, "baseline before: cell 2 has no result to compare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := tc.after
			sb.Spec.Acceptance.Baseline = &sbv1.BaselineSpec{SpiralBenchName: "before", MaxRegressionPercent: ptr.To[int32](5)}
			sb.Status.Conditions, sb.Status.Phase, sb.Status.CompletionTime = nil, sbv1.PhaseRunning, nil
			h := newHarness(t, sb, base.DeepCopy())
			h.r.complete(t.Context(), sb)
			live := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
			if live == nil || live.Reason != tc.want || !strings.Contains(live.Message, tc.says) || sb.Status.Baseline == nil || len(sb.Status.Baseline.Cells) == 0 {
				t.Fatalf("live verdict %+v, baseline figures %+v", live, sb.Status.Baseline)
			}
			if err := h.c.Delete(t.Context(), base.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			files, err := report.Files(sb)
			if err != nil {
				t.Fatal(err)
			}
			back, err := runstore.FromFiles(files)
			if err != nil {
				t.Fatal(err)
			}
			got := meta.FindStatusCondition(back.Status.Conditions, sbv1.ConditionPassed)
			if got.Status != live.Status || got.Reason != live.Reason || got.Message != live.Message {
				t.Errorf("read back: %s %s %q\n            live: %s %s %q", got.Status, got.Reason, got.Message, live.Status, live.Reason, live.Message)
			}
			if back.Status.CellsSummary != sb.Status.CellsSummary {
				t.Errorf("cells %q, live %q", back.Status.CellsSummary, sb.Status.CellsSummary)
			}
		})
	}
}
