// Package aggregate turns a cell's repeat results into the mean and sample standard deviation
// that status reports. It is pure, so it tests without a cluster.
package aggregate

import (
	"fmt"
	"math"
	"slices"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Stat is the rounded mean and sample standard deviation of xs (0 for fewer than two).
func Stat(xs []int64) sbv1.Statistic {
	if len(xs) == 0 {
		return sbv1.Statistic{}
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	mean := sum / float64(len(xs))
	var sq float64
	for _, x := range xs {
		d := float64(x) - mean
		sq += d * d
	}
	std := 0.0
	if len(xs) > 1 {
		std = math.Sqrt(sq / float64(len(xs)-1))
	}
	return sbv1.Statistic{Mean: int64(math.Round(mean)), StdDev: int64(math.Round(std))}
}

// Fill sets a cell's aggregates and state from its repeat results. Valid repeats make the
// numbers; any Invalid repeat makes the cell Invalid and its message says how many and why.
// It leaves the cell unflagged: FlagNoisy judges its spread against the spec's threshold.
func Fill(cell *sbv1.CellResult) {
	invalid, firstInvalid := 0, (*sbv1.RepeatResult)(nil)
	for i := range cell.RepeatResults {
		if r := &cell.RepeatResults[i]; r.State != sbv1.CellValid {
			invalid++
			if firstInvalid == nil {
				firstInvalid = r
			}
		}
	}
	cell.Repeats = int32(len(cell.RepeatResults))
	if pick := measured(cell); len(pick) > 0 {
		rx := Stat(column(pick, func(r sbv1.RepeatResult) int64 { return r.RXMbps }))
		cell.RXMbps = &rx
		cell.Drops, cell.DropsKind = 0, ""
		for _, r := range pick {
			cell.Drops += r.Drops
			// A raw, NCCL or copy repeat names the counters that were not zero, "none" if none:
			// no kind of drops, as absent as the drops themselves.
			if r.DropsKind != "" && r.DropsKind != "none" {
				cell.DropsKind = r.DropsKind
			}
		}
		cell.Latency = combineLatency(pick)
		cell.Search = searchStats(pick)
	}
	Derive(cell)
	switch {
	case invalid > 0:
		cell.State = sbv1.CellInvalid
		cell.Message = fmt.Sprintf("%d of %d repeats invalid; first: %s", invalid, len(cell.RepeatResults), firstInvalid.Message)
	default:
		cell.State = sbv1.CellValid
	}
}

// Derive sets the figures a bench does not store (sbv1.CellResult's TXMbps to Spread) from the
// cell's repeat results, the same way Fill does; with no repeats attached they are unknown.
func Derive(cell *sbv1.CellResult) {
	ClearDerived(cell)
	if pick := measured(cell); len(pick) > 0 {
		tx := Stat(column(pick, func(r sbv1.RepeatResult) int64 { return r.TXMbps }))
		pps := Stat(column(pick, func(r sbv1.RepeatResult) int64 { return r.PacketsPerSecond }))
		cell.TXMbps, cell.PacketsPerSecond = &tx, &pps
		cell.LossPPM = Stat(column(pick, func(r sbv1.RepeatResult) int64 { return r.LossPPM })).Mean
		cell.CPU = meanCPU(pick)
		cell.GPU = meanGPU(pick)
	}
	fillSpread(cell)
	for _, r := range cell.RepeatResults { // every repeat: one that never crossed decides
		if r.Wire != nil {
			cell.Wire = summary.WorseWire(cell.Wire, r.Wire.Verdict)
		}
	}
}

// ClearDerived makes the figures Derive sets unknown, and the cell unflagged.
func ClearDerived(cell *sbv1.CellResult) {
	cell.TXMbps, cell.PacketsPerSecond, cell.LossPPM, cell.CPU, cell.GPU, cell.Spread = nil, nil, 0, nil, nil, nil
	cell.Noisy, cell.Wire = false, ""
}

// measured are the repeats a cell's figures are made of: the Valid ones, or, where none is,
// every repeat (an all-invalid cell reports what it measured, marked Invalid).
func measured(cell *sbv1.CellResult) []sbv1.RepeatResult {
	var valid []sbv1.RepeatResult
	for _, r := range cell.RepeatResults {
		if r.State == sbv1.CellValid {
			valid = append(valid, r)
		}
	}
	if len(valid) == 0 {
		return cell.RepeatResults
	}
	return valid
}

func column(rs []sbv1.RepeatResult, f func(sbv1.RepeatResult) int64) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func meanCPU(rs []sbv1.RepeatResult) *sbv1.CPUBusy {
	var m, tx, rx []int64
	for _, r := range rs {
		if r.CPU != nil {
			m, tx, rx = append(m, int64(r.CPU.MasterMilliPercent)), append(tx, int64(r.CPU.TXMilliPercent)), append(rx, int64(r.CPU.RXMilliPercent))
		}
	}
	if len(m) == 0 {
		return nil
	}
	return &sbv1.CPUBusy{MasterMilliPercent: int32(Stat(m).Mean), TXMilliPercent: int32(Stat(tx).Mean), RXMilliPercent: int32(Stat(rx).Mean)}
}

// combineLatency folds the repeats' percentiles so that a gate on the cell sees the worst tail:
// the fastest minimum, the median of the medians, the highest p99, p99.9 and maximum.
func combineLatency(rs []sbv1.RepeatResult) *sbv1.Latency {
	var out *sbv1.Latency
	var p50s []int64
	for _, r := range rs {
		l := r.Latency
		if l == nil {
			continue
		}
		if out == nil {
			out = &sbv1.Latency{MinNanoseconds: l.MinNanoseconds}
		}
		out.MinNanoseconds = min(out.MinNanoseconds, l.MinNanoseconds)
		out.P99Nanoseconds = max(out.P99Nanoseconds, l.P99Nanoseconds)
		out.P999Nanoseconds = max(out.P999Nanoseconds, l.P999Nanoseconds)
		out.MaxNanoseconds = max(out.MaxNanoseconds, l.MaxNanoseconds)
		p50s = append(p50s, l.P50Nanoseconds)
	}
	if out != nil {
		slices.Sort(p50s)
		out.P50Nanoseconds = p50s[(len(p50s)-1)/2] // the lower median: a value one repeat measured
	}
	return out
}

func meanGPU(rs []sbv1.RepeatResult) *sbv1.GPUBusy {
	var sm, mem []int64
	for _, r := range rs {
		if r.GPU != nil {
			sm, mem = append(sm, int64(r.GPU.SMMilliPercent)), append(mem, int64(r.GPU.MemoryMilliPercent))
		}
	}
	if len(sm) == 0 {
		return nil
	}
	return &sbv1.GPUBusy{SMMilliPercent: int32(Stat(sm).Mean), MemoryMilliPercent: int32(Stat(mem).Mean)}
}

// searchStats: the found rates over the repeats that searched (a repeat below the lower bound
// counts 0, so a gate on the mean sees it).
func searchStats(rs []sbv1.RepeatResult) *sbv1.SearchStatistics {
	var ndr, pdr []int64
	out := &sbv1.SearchStatistics{}
	for _, r := range rs {
		if r.Search == nil {
			continue
		}
		ndr = append(ndr, r.Search.NDRMbps)
		if r.Search.PDRMbps != nil {
			pdr = append(pdr, *r.Search.PDRMbps)
		}
		if r.Search.NDRBelowLower {
			out.BelowLower++
		}
		if r.Search.NDRAtUpper {
			out.AtUpper++
		}
	}
	if len(ndr) == 0 {
		return nil
	}
	out.NDRMbps = Stat(ndr)
	if len(pdr) > 0 {
		p := Stat(pdr)
		out.PDRMbps = &p
	}
	return out
}
