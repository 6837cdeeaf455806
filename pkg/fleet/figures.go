package fleet

import (
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// HeadlineMetric is the metric a fleet compares nodes by and keeps in each row's value:
// stragglers.metric, else baseline.metric, else RxMbps.
func HeadlineMetric(spec *sbv1.SpiralBenchFleetSpec) sbv1.FleetMetric {
	if s := spec.Stragglers; s != nil && s.Metric != "" {
		return s.Metric
	}
	if b := spec.Baseline; b != nil && b.Metric != "" {
		return b.Metric
	}
	return sbv1.FleetMetric(sbv1.MetricRxMbps)
}

// ReadFigure reads a figure from a bench's headline cell (the first cell when none is marked),
// only when that cell is Valid.
func ReadFigure(sb *sbv1.SpiralBench, name string) (float64, bool) {
	f, ok := figure.Lookup(name)
	c := headlineCell(sb)
	if !ok || c == nil || c.State != sbv1.CellValid {
		return 0, false
	}
	return f.Cell(c)
}

// RepeatValues are the figure of each Valid repeat of the headline cell (a Valid cell only),
// what a node's history keeps; nil for figures not kept per repeat.
func RepeatValues(sb *sbv1.SpiralBench, name string) []int64 {
	f, ok := figure.Lookup(name)
	c := headlineCell(sb)
	if !ok || f.Repeat == nil || c == nil || c.State != sbv1.CellValid {
		return nil
	}
	var out []int64
	for i := range c.RepeatResults {
		if c.RepeatResults[i].State != sbv1.CellValid {
			continue
		}
		if v, ok := f.Repeat(&c.RepeatResults[i]); ok {
			out = append(out, int64(v))
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
	// Ceilings are the headline cell's figures against their ceilings, by figure name.
	Ceilings map[string]StepCeiling
}

// Observe reads an Observation from a finished bench: every figure its headline cell has, the
// environment facts, the copy bench's peer links, NCCL's transports and the wire verdicts.
func Observe(sb *sbv1.SpiralBench) Observation {
	o := Observation{Figures: map[string]float64{}, Facts: FactsOf(sb), Ceilings: ceilingsOf(sb)}
	for _, name := range figure.Names() {
		if v, ok := ReadFigure(sb, name); ok {
			o.Figures[name] = v
		}
	}
	seenLink, seenTransport := map[string]bool{}, map[string]bool{}
	o.WireNotCrossed = sb.Status.Wire == sbv1.WireDidNotCross // the worst of every cell's, stored
	for _, c := range sb.Status.CellResults {
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
