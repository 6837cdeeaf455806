package figure

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RxCV is the coefficient of variation of RxMbps over a cell's Valid repeats, in thousandths of
// a percent (status spread.cvMilliPercent), so that a rule, a fleet or a baseline can bound how
// noisy a cell may be. A cell whose spread is of another figure (an NCCL, GPUCopy, search or
// latency cell), or which has fewer than two Valid repeats, has none.
var RxCV = Figure{Name: string(sbv1.MetricRxMbpsCVMilliPercent), Unit: MilliPercent,
	Cell: func(c *sbv1.CellResult) (float64, bool) {
		if c.Spread == nil || c.Spread.Figure != Rx.Name {
			return 0, false
		}
		return float64(c.Spread.CVMilliPercent), true
	}}

func init() { add(RxCV) }

// HeadlineRepeats reads the cell's headline figure from each of its Valid repeats, the values
// its spread is computed over: an NCCL cell's bus bandwidth, a GPUCopy cell's host-to-device
// copy rate (device-to-host where it copied only that way), a rate search's NDR, a latency
// cell's median latency, and RxMbps otherwise.
func HeadlineRepeats(c *sbv1.CellResult) (name string, values []int64) {
	readers := []struct {
		name string
		read func(rr *sbv1.RepeatResult) (int64, bool)
	}{
		{"NCCLBusbwMBps", ncclRepeat},
		{"CopyH2DMBps", func(rr *sbv1.RepeatResult) (int64, bool) { return copyRepeat(rr, "H2D") }},
		{"CopyD2HMBps", func(rr *sbv1.RepeatResult) (int64, bool) { return copyRepeat(rr, "D2H") }},
		{NDR.Name, func(rr *sbv1.RepeatResult) (int64, bool) {
			if rr.Search == nil {
				return 0, false
			}
			return rr.Search.NDRMbps, true
		}},
		{string(sbv1.MetricLatencyP50Nanoseconds), func(rr *sbv1.RepeatResult) (int64, bool) {
			if rr.Latency == nil {
				return 0, false
			}
			return rr.Latency.P50Nanoseconds, true
		}},
	}
	for _, r := range readers {
		if v := validRepeats(c, r.read); len(v) > 0 {
			return r.name, v
		}
	}
	return Rx.Name, validRepeats(c, func(rr *sbv1.RepeatResult) (int64, bool) { return rr.RXMbps, true })
}
