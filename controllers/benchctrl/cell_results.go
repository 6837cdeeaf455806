package benchctrl

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// The bench's per-cell bookkeeping in status: which cell is next, each cell's result entry,
// and the counters derived from them. Attempts and completion both read and write it here.

// nextCell is the first cell of the plan without a finished result.
func nextCell(sb *sbv1.SpiralBench, cells []plan.Cell) (plan.Cell, bool) {
	done := map[int32]bool{}
	for _, res := range sb.Status.CellResults {
		done[res.Index] = finishedState(res.State)
	}
	for _, c := range cells {
		if !done[c.Index] {
			return c, true
		}
	}
	return plan.Cell{}, false
}

// updateCounts derives the counters, progress, summary and best throughput from the cell results.
func updateCounts(sb *sbv1.SpiralBench) { acceptance.Count(&sb.Status) }

// cellResult returns the status entry of a cell, creating it in plan order.
func cellResult(sb *sbv1.SpiralBench, cell plan.Cell) *sbv1.CellResult {
	for i := range sb.Status.CellResults {
		if sb.Status.CellResults[i].Index == cell.Index {
			return &sb.Status.CellResults[i]
		}
	}
	sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{
		Index: cell.Index, Headline: cell.Headline, Parameters: cell.CellParameters, State: sbv1.CellPending,
	})
	return &sb.Status.CellResults[len(sb.Status.CellResults)-1]
}

func finishedState(s sbv1.CellState) bool {
	return s == sbv1.CellValid || s == sbv1.CellInvalid || s == sbv1.CellFailed
}
