package report

import (
	"io"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// writeSweeps prints, after the cell table, each cell's own results from its last valid
// repeat that carries them (or its last such repeat), as the bench's kind writes them: nccl-tests'
// table for NCCL, a row per copy for GPUCopy.
func writeSweeps(w io.Writer, sb *sbv1.SpiralBench) error {
	res := benchkind.ResultsOf(sb.Spec.Transport)
	if res.Has == nil || res.WriteRepeat == nil {
		return nil
	}
	for _, c := range sb.Status.CellResults {
		if r := lastSweep(c, res.Has); r != nil {
			if err := res.WriteRepeat(w, c, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func lastSweep(c sbv1.CellResult, has func(*sbv1.RepeatResult) bool) *sbv1.RepeatResult {
	var last *sbv1.RepeatResult
	for i := range c.RepeatResults {
		r := &c.RepeatResults[i]
		if !has(r) {
			continue
		}
		if last == nil || r.State == sbv1.CellValid || last.State != sbv1.CellValid {
			last = r
		}
	}
	return last
}
