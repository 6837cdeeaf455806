package fleet

import (
	"sort"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A Figure is one number a step reports and a node class references: its name, unit, which
// way is better, and how it is read from a finished bench. Rows, references, history and the
// straggler search all name figures from this one table.
type Figure struct {
	Name string
	Unit string
	// HigherIsBetter: throughput up; latency and loss down.
	HigherIsBetter bool
	// read returns the figure of a finished bench's headline cell, and false when it has none.
	read func(c *sbv1.CellResult) (float64, bool)
	// repeat reads the figure from one repeat, for history; nil for figures not kept per repeat.
	repeat func(rr *sbv1.RepeatResult) (int64, bool)
}

// Figures is the table, by name. The stream figures share their names with sbv1.Metric.
var Figures = map[string]Figure{}

func addFigure(f Figure) { Figures[f.Name] = f }

func init() {
	stat := func(pick func(c *sbv1.CellResult) *sbv1.Statistic) func(c *sbv1.CellResult) (float64, bool) {
		return func(c *sbv1.CellResult) (float64, bool) {
			if s := pick(c); s != nil {
				return float64(s.Mean), true
			}
			return 0, false
		}
	}
	addFigure(Figure{Name: "RxMbps", Unit: "Mb/s", HigherIsBetter: true, read: stat(func(c *sbv1.CellResult) *sbv1.Statistic { return c.RXMbps }),
		repeat: func(rr *sbv1.RepeatResult) (int64, bool) { return rr.RXMbps, true }})
	addFigure(Figure{Name: "TxMbps", Unit: "Mb/s", HigherIsBetter: true, read: stat(func(c *sbv1.CellResult) *sbv1.Statistic { return c.TXMbps }),
		repeat: func(rr *sbv1.RepeatResult) (int64, bool) { return rr.TXMbps, true }})
	addFigure(Figure{Name: "PacketsPerSecond", Unit: "packets/s", HigherIsBetter: true, read: stat(func(c *sbv1.CellResult) *sbv1.Statistic { return c.PacketsPerSecond }),
		repeat: func(rr *sbv1.RepeatResult) (int64, bool) { return rr.PacketsPerSecond, true }})
	addFigure(Figure{Name: "LossPPM", Unit: "ppm", read: func(c *sbv1.CellResult) (float64, bool) { return float64(c.LossPPM), c.RXMbps != nil },
		repeat: func(rr *sbv1.RepeatResult) (int64, bool) { return rr.LossPPM, true }})
	latency := func(p99 bool) func(c *sbv1.CellResult) (float64, bool) {
		return func(c *sbv1.CellResult) (float64, bool) {
			if c.Latency == nil {
				return 0, false
			}
			if p99 {
				return float64(c.Latency.P99Nanoseconds), true
			}
			return float64(c.Latency.P50Nanoseconds), true
		}
	}
	repeatLatency := func(p99 bool) func(rr *sbv1.RepeatResult) (int64, bool) {
		return func(rr *sbv1.RepeatResult) (int64, bool) {
			if rr.Latency == nil {
				return 0, false
			}
			if p99 {
				return rr.Latency.P99Nanoseconds, true
			}
			return rr.Latency.P50Nanoseconds, true
		}
	}
	addFigure(Figure{Name: "LatencyP50Nanoseconds", Unit: "ns", read: latency(false), repeat: repeatLatency(false)})
	addFigure(Figure{Name: "LatencyP99Nanoseconds", Unit: "ns", read: latency(true), repeat: repeatLatency(true)})
	addFigure(Figure{Name: "CopyH2DMBps", Unit: "MB/s", HigherIsBetter: true, read: copyFigure(sbv1.CopyDirection("H2D"))})
	addFigure(Figure{Name: "CopyD2HMBps", Unit: "MB/s", HigherIsBetter: true, read: copyFigure(sbv1.CopyDirection("D2H"))})
	addFigure(Figure{Name: "NCCLBusbwMBps", Unit: "MB/s", HigherIsBetter: true, read: ncclBusbw})
}

// HigherIsBetter says which way a figure improves: throughput up, latency and loss down.
func HigherIsBetter(figure string) bool {
	if f, ok := Figures[figure]; ok {
		return f.HigherIsBetter
	}
	return true
}

// ReadFigure reads a figure from a bench's headline cell (the first cell when none is marked),
// only when that cell is Valid.
func ReadFigure(sb *sbv1.SpiralBench, figure string) (float64, bool) {
	f, ok := Figures[figure]
	c := headlineCell(sb)
	if !ok || c == nil || c.State != sbv1.CellValid {
		return 0, false
	}
	return f.read(c)
}

// RepeatValues are the figure of each Valid repeat of the headline cell (a Valid cell only),
// what a node's history keeps; nil for figures not kept per repeat.
func RepeatValues(sb *sbv1.SpiralBench, figure string) []int64 {
	f, ok := Figures[figure]
	c := headlineCell(sb)
	if !ok || f.repeat == nil || c == nil || c.State != sbv1.CellValid {
		return nil
	}
	var out []int64
	for i := range c.RepeatResults {
		if c.RepeatResults[i].State != sbv1.CellValid {
			continue
		}
		if v, ok := f.repeat(&c.RepeatResults[i]); ok {
			out = append(out, v)
		}
	}
	return out
}

func headlineCell(sb *sbv1.SpiralBench) *sbv1.CellResult {
	var cell *sbv1.CellResult
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		if c.Headline {
			return c
		}
		if cell == nil {
			cell = c
		}
	}
	return cell
}

// copyFigure is the slowest GPU's best pinned copy rate in one direction, median over the
// valid repeats: the node is as good as its worst GPU.
func copyFigure(dir sbv1.CopyDirection) func(c *sbv1.CellResult) (float64, bool) {
	return func(c *sbv1.CellResult) (float64, bool) {
		var perRepeat []int64
		for _, rr := range c.RepeatResults {
			if rr.State != sbv1.CellValid || rr.Copies == nil {
				continue
			}
			best := map[int32]int64{}
			for _, s := range rr.Copies.Sizes {
				if s.Direction == dir && s.HostMemory != "Pageable" && s.MegabytesPerSecond > best[s.Device] {
					best[s.Device] = s.MegabytesPerSecond
				}
			}
			if len(best) == 0 {
				continue
			}
			worst := int64(-1)
			for _, v := range best {
				if worst < 0 || v < worst {
					worst = v
				}
			}
			perRepeat = append(perRepeat, worst)
		}
		if len(perRepeat) == 0 {
			return 0, false
		}
		return Median(perRepeat), true
	}
}

// ncclBusbw is the bus bandwidth at the largest size (out of place), median over valid repeats.
func ncclBusbw(c *sbv1.CellResult) (float64, bool) {
	var perRepeat []int64
	for _, rr := range c.RepeatResults {
		if rr.State != sbv1.CellValid || rr.Collective == nil || len(rr.Collective.Sizes) == 0 {
			continue
		}
		sizes := append([]sbv1.CollectiveSize(nil), rr.Collective.Sizes...)
		sort.SliceStable(sizes, func(i, j int) bool { return sizes[i].Bytes < sizes[j].Bytes })
		top := sizes[len(sizes)-1]
		for _, s := range sizes {
			if s.Bytes == top.Bytes && !s.InPlace {
				top = s
			}
		}
		perRepeat = append(perRepeat, top.BusbwMBps)
	}
	if len(perRepeat) == 0 {
		return 0, false
	}
	return Median(perRepeat), true
}

// Observation is what a finished step says about its node beyond pass or fail: its figures,
// the facts a node class is matched on, and the link findings the judge turns into reasons.
type Observation struct {
	Figures map[string]float64
	Facts   Facts
	// PeerLinks are the GPU peer paths (NV18, PIX, SYS, ...) the copy bench saw.
	PeerLinks []string
	// NCCLTransports are the transports NCCL chose between ranks (P2P/NVLink, NET/Socket, ...).
	NCCLTransports []string
	// WireNotCrossed: a repeat's bytes did not cross the cable (PHY counters).
	WireNotCrossed bool
	// NoGPU: the step needs GPUs and the node has none.
	NoGPU bool
}

// Observe reads an Observation from a finished bench: every figure its headline cell has, the
// environment facts, the copy bench's peer links, NCCL's transports and the wire verdicts.
func Observe(sb *sbv1.SpiralBench) Observation {
	o := Observation{Figures: map[string]float64{}, Facts: FactsOf(sb)}
	for name := range Figures {
		if v, ok := ReadFigure(sb, name); ok {
			o.Figures[name] = v
		}
	}
	seenLink, seenTransport := map[string]bool{}, map[string]bool{}
	for _, c := range sb.Status.CellResults {
		if c.Wire == sbv1.WireDidNotCross {
			o.WireNotCrossed = true
		}
		for _, rr := range c.RepeatResults {
			if rr.Copies != nil {
				for _, l := range rr.Copies.PeerLinks {
					if !seenLink[l.Path] {
						seenLink[l.Path] = true
						o.PeerLinks = append(o.PeerLinks, l.Path)
					}
				}
			}
			if rr.Collective != nil {
				for _, p := range rr.Collective.Peers {
					if !seenTransport[p.Transport] {
						seenTransport[p.Transport] = true
						o.NCCLTransports = append(o.NCCLTransports, p.Transport)
					}
				}
			}
		}
	}
	if o.Facts.GPUCount == 0 {
		for _, c := range sb.Status.CellResults {
			for _, rr := range c.RepeatResults {
				if rr.Copies != nil && int32(len(rr.Copies.GPUs)) > o.Facts.GPUCount {
					o.Facts.GPUCount = int32(len(rr.Copies.GPUs))
				}
			}
		}
	}
	if len(o.PeerLinks) > 0 {
		o.Facts.NVLink = ptrBool(allNVLink(o.PeerLinks))
	}
	return o
}

func allNVLink(paths []string) bool {
	for _, p := range paths {
		if !strings.HasPrefix(p, "NV") {
			return false
		}
	}
	return true
}

func ptrBool(b bool) *bool { return &b }
