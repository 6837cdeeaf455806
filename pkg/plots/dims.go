package plots

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/stat"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// dim is one coordinate of the matrix.
type dim int

const (
	dimPayload dim = iota
	dimBatch
	dimPairs
	dimQueues
	dimTarget
	dimWorkload
	dimWBatch
)

type dimension struct {
	// name titles a legend whose series this coordinate splits.
	name  string
	value func(p sbv1.CellParameters) float64
	label func(p sbv1.CellParameters) string
}

// dims lists the coordinates in plan order; labels read as the seed's tables do.
var dims = []dimension{
	dimPayload: {"payload", func(p sbv1.CellParameters) float64 { return float64(p.PayloadBytes) },
		func(p sbv1.CellParameters) string { return Size(p.PayloadBytes) }},
	dimBatch: {"batch", func(p sbv1.CellParameters) float64 { return float64(p.Batch) },
		func(p sbv1.CellParameters) string { return fmt.Sprintf("batch %d", p.Batch) }},
	dimPairs: {"pairs", func(p sbv1.CellParameters) float64 { return float64(p.Pairs) },
		func(p sbv1.CellParameters) string {
			if p.Pairs == 1 {
				return "1 pair"
			}
			return fmt.Sprintf("%d pairs", p.Pairs)
		}},
	dimQueues: {"queues (TX, RX)", func(p sbv1.CellParameters) float64 { return float64(p.Queues.TX*100 + p.Queues.RX) },
		func(p sbv1.CellParameters) string { return fmt.Sprintf("queues (%d,%d)", p.Queues.TX, p.Queues.RX) }},
	dimTarget: {"target rate", func(p sbv1.CellParameters) float64 { return float64(p.TargetRateMbps) },
		func(p sbv1.CellParameters) string {
			if p.TargetRateMbps == 0 {
				return "unpaced"
			}
			return "@ " + figure.Mbps.FormatPrec(float64(p.TargetRateMbps), -1) + " " + figure.Mbps.Shown
		}},
	dimWorkload: {"workload", func(p sbv1.CellParameters) float64 { return float64(len(p.Workload)) },
		func(p sbv1.CellParameters) string {
			if !hasWorkload(p) {
				return "no workload"
			}
			return p.Workload.DataplaneName()
		}},
	dimWBatch: {"workload batch", func(p sbv1.CellParameters) float64 { return float64(p.WorkloadBatchBytes) },
		func(p sbv1.CellParameters) string {
			if p.WorkloadBatchBytes == 0 {
				return "window"
			}
			return "wbatch " + Size(p.WorkloadBatchBytes)
		}},
}

// varying says which coordinates take more than one value across the cells.
func varying(cells []sbv1.CellResult) map[dim]bool {
	out := map[dim]bool{}
	for d := range dims {
		seen := map[string]bool{}
		for _, c := range cells {
			seen[dims[d].label(c.Parameters)] = true
		}
		out[dim(d)] = len(seen) > 1
	}
	return out
}

// allCells labels the one series of a figure whose other coordinates are all fixed.
const allCells = "all cells"

// seriesLabel names a cell by the varying coordinates other than except; "" when none varies.
func seriesLabel(p sbv1.CellParameters, vary map[dim]bool, except dim) string {
	var parts []string
	for d := range dims {
		if dim(d) != except && vary[dim(d)] {
			parts = append(parts, dims[d].label(p))
		}
	}
	if len(parts) == 0 {
		return allCells
	}
	return strings.Join(parts, ", ")
}

// legendTitle names what splits a chart's series: lead, then the varying coordinates other than
// except, as seriesLabel joins their values; "series" when there is none.
func legendTitle(vary map[dim]bool, except dim, lead ...string) string {
	parts := lead
	for d := range dims {
		if dim(d) != except && vary[dim(d)] {
			parts = append(parts, dims[d].name)
		}
	}
	if len(parts) == 0 {
		return "series"
	}
	return strings.Join(parts, ", ")
}

// Size writes a byte count as the seed's tables do: 1 MiB, 64 KiB, 8000 B.
func Size(b int32) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// MeanStd is the mean and sample standard deviation (0 for fewer than two values).
func MeanStd(xs []float64) (mean, std float64) {
	switch len(xs) {
	case 0:
		return 0, 0
	case 1:
		return xs[0], 0
	}
	return stat.MeanStdDev(xs, nil)
}
