package benchkind

import (
	"fmt"
	"io"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// CopiesFile is a GPUCopy bench's file of copy rows beside runs.csv.
const CopiesFile = "copies.csv"

// CopyColumns are copies.csv's: one row per cell, repeat, GPU, direction, host memory and size.
var CopyColumns = []string{"cell", "rep", "device", "direction", "memory", "size", "time_us", "gbps",
	"numa_node", "pcie_gen", "pcie_width", "state"}

// CopiesCSV renders the sweeps of a GPUCopy bench; nil when no repeat carries one.
func CopiesCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var rows [][]string
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Copies == nil {
				continue
			}
			gpus := map[int32]sbv1.GPUPlacement{}
			for _, g := range r.Copies.GPUs {
				gpus[g.Device] = g
			}
			for _, s := range r.Copies.Sizes {
				g, ok := gpus[s.Device]
				if !ok {
					g = sbv1.GPUPlacement{NUMANode: -1, PCIeGeneration: -1, PCIeWidth: -1}
				}
				memory := string(s.HostMemory)
				if memory == "" {
					memory = "Device"
				}
				rows = append(rows, []string{itoa64(int64(c.Index)), itoa64(int64(r.Repeat)), itoa64(int64(s.Device)), string(s.Direction),
					memory, itoa64(s.Bytes), Micros(s.TimeNanoseconds), Gigabytes(s.MegabytesPerSecond),
					itoa64(int64(g.NUMANode)), itoa64(int64(g.PCIeGeneration)), itoa64(int64(g.PCIeWidth)), string(r.State)})
			}
		}
	}
	return CSVOf(CopyColumns, rows)
}

// writeCopies prints one repeat's copies: the GPUs' places, a row per copy, then the matrices.
func writeCopies(w io.Writer, c sbv1.CellResult, r *sbv1.RepeatResult) error {
	cp := r.Copies
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "\ncell %d, repeat %d: copies\n", c.Index, r.Repeat)
	for _, g := range cp.GPUs {
		fmt.Fprintf(w, "GPU %d: NUMA node %d, PCIe gen %d x%d\n", g.Device, g.NUMANode, g.PCIeGeneration, g.PCIeWidth)
	}
	fmt.Fprintln(tw, "GPU\tdirection\tmemory\tsize (B)\ttime (us)\tGB/s\t")
	for _, s := range cp.Sizes {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t\n", s.Device, s.Direction, OrDash(string(s.HostMemory)), s.Bytes,
			Micros(s.TimeNanoseconds), Gigabytes(s.MegabytesPerSecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCopyPeers(w, cp); err != nil {
		return err
	}
	return nil
}
