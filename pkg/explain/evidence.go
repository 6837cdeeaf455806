package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/ceiling"
)

// evidenceOf is the load of the cell's pinned cores (each side's poller share, which the data
// plane records as a mean over that side's pollers) and of its GPU's SMs.
func evidenceOf(sb *sbv1.SpiralBench, c *sbv1.CellResult) []ceiling.Evidence {
	var out []ceiling.Evidence
	if c.CPU != nil {
		for _, side := range sides(sb, c) {
			if e, ok := coreEvidence(side); ok {
				out = append(out, e)
			}
		}
	}
	if e, ok := ceiling.GPUSMBusy(gpuShare(c), workOf(c), 0); ok {
		out = append(out, e)
	}
	return out
}

// side is one role's pollers and their mean busy share (negative: not pinned, unknown).
type side struct {
	role  string
	cores []int
	share float64
}

func sides(sb *sbv1.SpiralBench, c *sbv1.CellResult) []side {
	if c.CPU == nil {
		return nil
	}
	rx, tx := pollers(sb.Spec.Topology.Server.Cores, c, false), pollers(sb.Spec.Topology.Client.Cores, c, true)
	return []side{{"RX", rx, share(c.CPU.RXMilliPercent)}, {"TX", tx, share(c.CPU.TXMilliPercent)}}
}

// pollers are the distinct cores a side's pollers ran on: poller i on list[i % len], one per
// pair (sockets) or queue (raw).
func pollers(m *sbv1.CoreMap, c *sbv1.CellResult, tx bool) []int {
	if m == nil || len(m.Pollers) == 0 {
		return nil
	}
	n := max(c.Parameters.Pairs, 1)
	if q := c.Parameters.Queues.RX; !tx && q > 1 {
		n = q
	} else if q := c.Parameters.Queues.TX; tx && q > 1 {
		n = q
	}
	seen := map[int]bool{}
	var out []int
	for i := int32(0); i < n; i++ {
		core := int(m.Pollers[int(i)%len(m.Pollers)])
		if !seen[core] {
			seen[core], out = true, append(out, core)
		}
	}
	sort.Ints(out)
	return out
}

// coreEvidence reads one side: "RX core 3 busy 99 %" for one poller core, the mean over them
// for several ("RX cores 3,4 busy 99 % (mean)"), since the share recorded is their mean.
func coreEvidence(s side) (ceiling.Evidence, bool) {
	if s.share < 0 {
		return ceiling.Evidence{}, false
	}
	if len(s.cores) == 1 {
		return ceiling.BusiestCore([]ceiling.CoreBusy{{Core: s.cores[0], Role: s.role, Share: s.share}}, 0)
	}
	// A mean over several cores above the threshold means each of them nearly is.
	pct := fmt.Sprintf("%d %%", int(math.Round(s.share*100)))
	e := ceiling.Evidence{Component: ceiling.CPU, Share: s.share, Saturated: s.share > ceiling.DefaultSaturated,
		Text: fmt.Sprintf("%s cores busy %s", s.role, pct)}
	if len(s.cores) > 0 {
		names := make([]string, len(s.cores))
		for i, c := range s.cores {
			names[i] = fmt.Sprint(c)
		}
		e.Text = fmt.Sprintf("%s cores %s busy %s (mean)", s.role, strings.Join(names, ","), pct)
	}
	return e, true
}

// coresOf are the sides with one poller core, as pkg/ceiling's inputs take them.
func coresOf(sb *sbv1.SpiralBench, c *sbv1.CellResult) []ceiling.CoreBusy {
	var out []ceiling.CoreBusy
	for _, s := range sides(sb, c) {
		if s.share >= 0 && len(s.cores) == 1 {
			out = append(out, ceiling.CoreBusy{Core: s.cores[0], Role: s.role, Share: s.share})
		}
	}
	return out
}

// gpuShare is the SM busy share, 0..1; -1 where the data plane could not tell.
func gpuShare(c *sbv1.CellResult) float64 {
	if c.GPU == nil || c.GPU.SMMilliPercent < 0 {
		return -1
	}
	return float64(c.GPU.SMMilliPercent) / 100000
}

// workOf names what kept the SMs busy: the cell's workload, "" without one.
func workOf(c *sbv1.CellResult) string {
	if w := c.Parameters.Workload; w != "" && w != sbv1.WorkloadNone {
		return w.DataplaneName()
	}
	return ""
}

// share is a milli-percent busy share as 0..1; negative stays negative (not pinned).
func share(milli int32) float64 {
	if milli < 0 {
		return -1
	}
	return float64(milli) / 100000
}
