package report

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// NotPinned stands where a CPU busy share is missing: the data plane measures the busy share of
// the cores a bench pins, as DAQIRI does, and reports -1 for a side that pinned none.
const NotPinned = "unpinned"

// CPUNote explains NotPinned once, for the line under a table.
const CPUNote = "CPU %: busy share of the cores the bench pins (topology.server.cores, topology.client.cores), " +
	"as DAQIRI measures it; \"" + NotPinned + "\": that side pinned no core, so no core's share belongs to the bench"

// CPUShare prints a CPU busy share in percent, NotPinned when the side pinned no core.
func CPUShare(milliPercent int32) string {
	if milliPercent < 0 {
		return NotPinned
	}
	return figure.MilliPercent.Format(float64(milliPercent))
}

// GPUShare prints a GPU busy share in percent, "-" when the cell ran no GPU work.
func GPUShare(milliPercent int32) string {
	if milliPercent < 0 {
		return "-"
	}
	return figure.MilliPercent.Format(float64(milliPercent))
}

// AnyCPUNotPinned says whether a table of these cells shows NotPinned, so CPUNote is due.
func AnyCPUNotPinned(cells []sbv1.CellResult) bool {
	for _, c := range cells {
		if c.CPU != nil && (c.CPU.TXMilliPercent < 0 || c.CPU.RXMilliPercent < 0 || c.CPU.MasterMilliPercent < 0) {
			return true
		}
	}
	return false
}
