package figure

import (
	"sort"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Figures the views of a result read directly; the rest are reached by name through Lookup.
var (
	Rx = withStat(Figure{Name: string(sbv1.MetricRxMbps), Unit: Mbps, HigherIsBetter: true,
		Stat:   func(c *sbv1.CellResult) *sbv1.Statistic { return c.RXMbps },
		Repeat: each(func(rr *sbv1.RepeatResult) int64 { return rr.RXMbps })})
	Tx = withStat(Figure{Name: string(sbv1.MetricTxMbps), Unit: Mbps, HigherIsBetter: true,
		Stat:   func(c *sbv1.CellResult) *sbv1.Statistic { return c.TXMbps },
		Repeat: each(func(rr *sbv1.RepeatResult) int64 { return rr.TXMbps })})
	PacketRate = withStat(Figure{Name: string(sbv1.MetricPacketsPerSecond), Unit: PacketsPerSecond, HigherIsBetter: true,
		Stat:   func(c *sbv1.CellResult) *sbv1.Statistic { return c.PacketsPerSecond },
		Repeat: each(func(rr *sbv1.RepeatResult) int64 { return rr.PacketsPerSecond })})
	// Loss is known once a repeat was measured: 0 is a figure, not a missing one.
	Loss = Figure{Name: string(sbv1.MetricLossPPM), Unit: PPM,
		Cell:   func(c *sbv1.CellResult) (float64, bool) { return float64(c.LossPPM), c.Repeats > 0 },
		Repeat: each(func(rr *sbv1.RepeatResult) int64 { return rr.LossPPM })}
	GPUSM = Figure{Name: string(sbv1.MetricGPUSMMilliPercent), Unit: MilliPercent, Cell: busy(func(c *sbv1.CellResult) (int32, bool) {
		if c.GPU == nil {
			return 0, false
		}
		return c.GPU.SMMilliPercent, true
	})}
	NDR = withStat(Figure{Name: string(sbv1.MetricNDRMbps), Unit: Mbps, HigherIsBetter: true,
		Stat: func(c *sbv1.CellResult) *sbv1.Statistic {
			if c.Search == nil {
				return nil
			}
			return &c.Search.NDRMbps
		}})
	PDR = withStat(Figure{Name: string(sbv1.MetricPDRMbps), Unit: Mbps, HigherIsBetter: true,
		Stat: func(c *sbv1.CellResult) *sbv1.Statistic {
			if c.Search == nil {
				return nil
			}
			return c.Search.PDRMbps
		}})
)

func init() {
	for _, f := range []Figure{Rx, Tx, PacketRate, Loss, GPUSM, NDR, PDR} {
		add(f)
	}
	add(Figure{Name: string(sbv1.MetricRxMbpsStdDev), Unit: Mbps, Cell: func(c *sbv1.CellResult) (float64, bool) {
		if c.RXMbps == nil {
			return 0, false
		}
		return float64(c.RXMbps.StdDev), true
	}})
	// Drops are known once a repeat was measured: 0 is a figure, not a missing one.
	add(Figure{Name: string(sbv1.MetricDrops), Unit: Packets,
		Cell:   func(c *sbv1.CellResult) (float64, bool) { return float64(c.Drops), c.Repeats > 0 },
		Repeat: each(func(rr *sbv1.RepeatResult) int64 { return rr.Drops })})
	add(Figure{Name: string(sbv1.MetricCPUTXMilliPercent), Unit: MilliPercent, Cell: busy(func(c *sbv1.CellResult) (int32, bool) {
		return cpuShare(c, true)
	})})
	add(Figure{Name: string(sbv1.MetricCPURXMilliPercent), Unit: MilliPercent, Cell: busy(func(c *sbv1.CellResult) (int32, bool) {
		return cpuShare(c, false)
	})})
	latency := func(pick func(l *sbv1.Latency) int64) (func(c *sbv1.CellResult) (float64, bool), func(rr *sbv1.RepeatResult) (float64, bool)) {
		return func(c *sbv1.CellResult) (float64, bool) {
				if c.Latency == nil {
					return 0, false
				}
				return float64(pick(c.Latency)), true
			}, func(rr *sbv1.RepeatResult) (float64, bool) {
				if rr.Latency == nil {
					return 0, false
				}
				return float64(pick(rr.Latency)), true
			}
	}
	for name, pick := range map[sbv1.Metric]func(l *sbv1.Latency) int64{
		sbv1.MetricLatencyP50Nanoseconds:  func(l *sbv1.Latency) int64 { return l.P50Nanoseconds },
		sbv1.MetricLatencyP99Nanoseconds:  func(l *sbv1.Latency) int64 { return l.P99Nanoseconds },
		sbv1.MetricLatencyP999Nanoseconds: func(l *sbv1.Latency) int64 { return l.P999Nanoseconds },
	} {
		cell, repeat := latency(pick)
		add(Figure{Name: string(name), Unit: Nanoseconds, Cell: cell, Repeat: repeat})
	}
	add(Figure{Name: string(sbv1.MetricNDRMbpsStdDev), Unit: Mbps, Cell: func(c *sbv1.CellResult) (float64, bool) {
		if c.Search == nil {
			return 0, false
		}
		return float64(c.Search.NDRMbps.StdDev), true
	}})
	add(Figure{Name: "CopyH2DMBps", Unit: MBps, HigherIsBetter: true, Cell: copyFigure(sbv1.CopyDirection("H2D"))})
	add(Figure{Name: "CopyD2HMBps", Unit: MBps, HigherIsBetter: true, Cell: copyFigure(sbv1.CopyDirection("D2H"))})
	// A copy within one GPU's memory, each byte counted once (the data plane's d2d).
	add(Figure{Name: "CopyD2DMBps", Unit: MBps, HigherIsBetter: true, Cell: copyFigure(sbv1.CopyDirection("D2D"))})
	add(Figure{Name: "NCCLBusbwMBps", Unit: MBps, HigherIsBetter: true, Cell: ncclBusbw})
}

// withStat reads a statistic figure's value as its mean.
func withStat(f Figure) Figure {
	stat := f.Stat
	f.Cell = func(c *sbv1.CellResult) (float64, bool) {
		if s := stat(c); s != nil {
			return float64(s.Mean), true
		}
		return 0, false
	}
	return f
}

func each(pick func(rr *sbv1.RepeatResult) int64) func(rr *sbv1.RepeatResult) (float64, bool) {
	return func(rr *sbv1.RepeatResult) (float64, bool) { return float64(pick(rr)), true }
}

// busy reads a busy share; -1 means the data plane could not tell.
func busy(pick func(c *sbv1.CellResult) (int32, bool)) func(c *sbv1.CellResult) (float64, bool) {
	return func(c *sbv1.CellResult) (float64, bool) {
		v, ok := pick(c)
		if !ok || v < 0 {
			return 0, false
		}
		return float64(v), true
	}
}

func cpuShare(c *sbv1.CellResult, tx bool) (int32, bool) {
	if c.CPU == nil {
		return 0, false
	}
	if tx {
		return c.CPU.TXMilliPercent, true
	}
	return c.CPU.RXMilliPercent, true
}

// copyFigure is the slowest GPU's best pinned copy rate in one direction, median over the
// valid repeats: a node is as good as its worst GPU.
func copyFigure(dir sbv1.CopyDirection) func(c *sbv1.CellResult) (float64, bool) {
	return medianOfValid(func(rr *sbv1.RepeatResult) (int64, bool) { return copyRepeat(rr, dir) })
}

// copyRepeat is one repeat's slowest GPU's best pinned copy rate in dir; a device-local (D2D)
// copy's is its rate at the largest size, since smaller copies run from the GPU's L2 cache
// faster than its memory allows.
func copyRepeat(rr *sbv1.RepeatResult, dir sbv1.CopyDirection) (int64, bool) {
	if rr.Copies == nil {
		return 0, false
	}
	best, largest := map[int32]int64{}, map[int32]int64{}
	for _, s := range rr.Copies.Sizes {
		switch {
		case s.Direction != dir || s.HostMemory == "Pageable":
		case dir == "D2D":
			if s.Bytes > largest[s.Device] || (s.Bytes == largest[s.Device] && s.MegabytesPerSecond > best[s.Device]) {
				largest[s.Device], best[s.Device] = s.Bytes, s.MegabytesPerSecond
			}
		case s.MegabytesPerSecond > best[s.Device]:
			best[s.Device] = s.MegabytesPerSecond
		}
	}
	// A many-GPU summary's rows may be trimmed to fit its message: each GPU's pinned rate alone
	// at the largest size is kept in the host aggregate.
	for _, h := range rr.Copies.HostAggregate {
		for i, v := range h.AloneMBps {
			if h.Direction == dir && i < len(rr.Copies.GPUs) && v > best[rr.Copies.GPUs[i].Device] {
				best[rr.Copies.GPUs[i].Device] = v
			}
		}
	}
	if len(best) == 0 {
		return 0, false
	}
	worst := int64(-1)
	for _, v := range best {
		if worst < 0 || v < worst {
			worst = v
		}
	}
	return worst, true
}

// ncclBusbw is the bus bandwidth at the largest size (out of place), median over valid repeats.
var ncclBusbw = medianOfValid(ncclRepeat)

// ncclRepeat is one repeat's bus bandwidth at its largest size, out of place where it has both.
func ncclRepeat(rr *sbv1.RepeatResult) (int64, bool) {
	if rr.Collective == nil || len(rr.Collective.Sizes) == 0 {
		return 0, false
	}
	sizes := append([]sbv1.CollectiveSize(nil), rr.Collective.Sizes...)
	sort.SliceStable(sizes, func(i, j int) bool { return sizes[i].Bytes < sizes[j].Bytes })
	top := sizes[len(sizes)-1]
	for _, s := range sizes {
		if s.Bytes == top.Bytes && !s.InPlace {
			top = s
		}
	}
	return top.BusbwMBps, true
}

// medianOfValid is a per-repeat figure's median over the cell's Valid repeats that carry it.
func medianOfValid(read func(rr *sbv1.RepeatResult) (int64, bool)) func(c *sbv1.CellResult) (float64, bool) {
	return func(c *sbv1.CellResult) (float64, bool) {
		values := validRepeats(c, read)
		if len(values) == 0 {
			return 0, false
		}
		return Median(values), true
	}
}

// validRepeats reads a per-repeat figure from each Valid repeat of the cell that carries it.
func validRepeats(c *sbv1.CellResult, read func(rr *sbv1.RepeatResult) (int64, bool)) []int64 {
	var out []int64
	for i := range c.RepeatResults {
		rr := &c.RepeatResults[i]
		if rr.State != sbv1.CellValid {
			continue
		}
		if v, ok := read(rr); ok {
			out = append(out, v)
		}
	}
	return out
}
