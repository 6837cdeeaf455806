package benchkind

import (
	"fmt"
	"math"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// copyHeatmaps returns each GPUCopy cell's matrices (one per method, mode and size), in the order
// the data plane measured them.
func copyHeatmaps(sb *sbv1.SpiralBench) []Heatmap {
	var out []Heatmap
	cells := 0
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Copies != nil && len(r.Copies.PeerMatrices) > 0 {
				cells++
				break
			}
		}
	}
	for _, c := range sb.Status.CellResults {
		out = append(out, cellHeatmaps(c, cells > 1)...)
	}
	return out
}

type matrixKey struct {
	method sbv1.CopyPeerMethod
	mode   sbv1.CopyPeerMode
	bytes  int64
}

func cellHeatmaps(c sbv1.CellResult, nameCell bool) []Heatmap {
	sums, counts := map[matrixKey][][]float64{}, map[matrixKey][][]int{}
	repeats := map[matrixKey]int{}
	var order []matrixKey
	var devices []int32
	var paths []string
	for _, r := range c.RepeatResults {
		if r.State != sbv1.CellValid || r.Copies == nil {
			continue
		}
		if devices == nil {
			for _, g := range r.Copies.GPUs {
				devices = append(devices, g.Device)
			}
			for _, l := range r.Copies.PeerLinks {
				paths = append(paths, fmt.Sprintf("%d-%d %s", l.DeviceA, l.DeviceB, l.Path))
			}
		}
		for _, m := range r.Copies.PeerMatrices {
			k := matrixKey{m.Method, m.Mode, m.Bytes}
			n := len(m.MegabytesPerSecond)
			if sums[k] == nil {
				order = append(order, k)
				sums[k], counts[k] = squareOf[float64](n), squareOf[int](n)
			}
			repeats[k]++
			for s, row := range m.MegabytesPerSecond {
				for d, mbps := range row {
					if mbps >= 0 && s < len(sums[k]) && d < len(sums[k][s]) {
						sums[k][s][d] += float64(mbps) / 1000
						counts[k][s][d]++
					}
				}
			}
		}
	}
	var out []Heatmap
	for _, k := range order {
		h := Heatmap{Name: heatmapName(k, c.Index, nameCell), Repeats: repeats[k], Paths: paths,
			Title: fmt.Sprintf("GPU to GPU, %s, %s, %s per copy: GB/s", methodWords[k.method], strings.ToLower(string(k.mode)), Size64(k.bytes))}
		for s := range sums[k] {
			row := make([]float64, len(sums[k][s]))
			for d := range row {
				row[d] = math.NaN()
				if counts[k][s][d] > 0 {
					row[d] = sums[k][s][d] / float64(counts[k][s][d])
				}
			}
			h.GBps = append(h.GBps, row)
		}
		for i := range h.GBps {
			if i < len(devices) {
				h.Devices = append(h.Devices, devices[i])
			} else {
				h.Devices = append(h.Devices, int32(i))
			}
		}
		out = append(out, h)
	}
	return out
}

var methodWords = map[sbv1.CopyPeerMethod]string{sbv1.CopyPeerCE: "copy engines", sbv1.CopyPeerSM: "SM copy kernel"}

func heatmapName(k matrixKey, cell int32, nameCell bool) string {
	mode := map[sbv1.CopyPeerMode]string{sbv1.CopyPeerUnidirectional: "uni", sbv1.CopyPeerBidirectional: "bi"}[k.mode]
	name := fmt.Sprintf("peer-%s-%s-%s", strings.ToLower(string(k.method)), mode, strings.ReplaceAll(Size64(k.bytes), " ", ""))
	if nameCell {
		name += fmt.Sprintf("-cell%d", cell)
	}
	return name
}

func squareOf[T any](n int) [][]T {
	out := make([][]T, n)
	for i := range out {
		out[i] = make([]T, n)
	}
	return out
}

// Size64 writes a byte count for figures and tables: GiB, MiB, KiB or B, whichever divides it.
func Size64(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
