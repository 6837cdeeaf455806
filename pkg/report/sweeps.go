package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// CollectiveColumns are collectives.csv's: one row per cell, repeat, size and placement of an
// NCCL bench, with nccl-tests' figures (time in us, algbw and busbw in GB/s), the check, the
// transports NCCL chose between the ranks ("P2P/NVLink", "NET/IB", ... joined by "+"), the
// per-iteration p50 and p99, and the rank with the largest mean time and that time (empty when
// not measured).
var CollectiveColumns = []string{"cell", "rep", "op", "size", "placement", "time_us", "algbw", "busbw", "check",
	"wrong", "ranks", "nccl_version", "state", "transports", "p50_us", "p99_us", "slowest_rank", "slowest_us"}

// CopyColumns are copies.csv's: one row per cell, repeat, GPU, direction, host memory and size.
var CopyColumns = []string{"cell", "rep", "device", "direction", "memory", "size", "time_us", "gbps",
	"numa_node", "pcie_gen", "pcie_width", "state"}

// CollectivesCSV renders the sweeps of an NCCL bench; nil when no repeat carries one.
func CollectivesCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var rows [][]string
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Collective == nil {
				continue
			}
			transports := transportsOf(r.Collective.Peers)
			for _, s := range r.Collective.Sizes {
				placement := "out_of_place"
				if s.InPlace {
					placement = "in_place"
				}
				rows = append(rows, []string{itoa(int64(c.Index)), itoa(int64(r.Repeat)), r.Collective.Operation.DataplaneName(),
					itoa(s.Bytes), placement, micros(s.TimeNanoseconds), gigabytes(s.AlgbwMBps), gigabytes(s.BusbwMBps), string(s.Check),
					itoa(s.WrongElements), itoa(int64(r.Collective.Ranks)), r.Collective.NCCLVersion, string(r.State), transports,
					microsOrEmpty(s.P50Nanoseconds), microsOrEmpty(s.P99Nanoseconds), slowestRank(s), microsOrEmpty(s.SlowestNanoseconds)})
			}
		}
	}
	return csvOf(CollectiveColumns, rows)
}

// transportsOf lists the distinct transports of a sweep's peers, sorted, joined by "+".
func transportsOf(peers []sbv1.PeerTransport) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range peers {
		if !seen[p.Transport] {
			seen[p.Transport] = true
			out = append(out, p.Transport)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "+")
}

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
				rows = append(rows, []string{itoa(int64(c.Index)), itoa(int64(r.Repeat)), itoa(int64(s.Device)), string(s.Direction),
					memory, itoa(s.Bytes), micros(s.TimeNanoseconds), gigabytes(s.MegabytesPerSecond),
					itoa(int64(g.NUMANode)), itoa(int64(g.PCIeGeneration)), itoa(int64(g.PCIeWidth)), string(r.State)})
			}
		}
	}
	return csvOf(CopyColumns, rows)
}

func csvOf(columns []string, rows [][]string) ([]byte, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(columns); err != nil {
		return nil, err
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// micros writes nanoseconds as microseconds with nccl-tests' two decimals.
func micros(ns int64) string { return strconv.FormatFloat(float64(ns)/1000, 'f', 2, 64) }

// microsOrEmpty is micros, or "" for a figure not measured (0).
func microsOrEmpty(ns int64) string {
	if ns <= 0 {
		return ""
	}
	return micros(ns)
}

// slowestRank is the row's slowest rank, or "" when the row has none.
func slowestRank(s sbv1.CollectiveSize) string {
	if s.SlowestNanoseconds <= 0 {
		return ""
	}
	return itoa(int64(s.SlowestRank))
}

// gigabytes writes MB/s as GB/s with two decimals.
func gigabytes(mbps int64) string { return strconv.FormatFloat(float64(mbps)/1000, 'f', 2, 64) }

// writeSweeps prints, after the cell table, each cell's sweep from its last valid repeat (or its
// last repeat): nccl-tests' table for NCCL, a row per copy for GPUCopy.
func writeSweeps(w io.Writer, sb *sbv1.SpiralBench) error {
	for _, c := range sb.Status.CellResults {
		r := lastSweep(c)
		if r == nil {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		if col := r.Collective; col != nil {
			fmt.Fprintf(w, "\ncell %d, repeat %d: %s, %d ranks, NCCL %s, network %s\n", c.Index, r.Repeat,
				col.Operation.DataplaneName(), col.Ranks, orDash(col.NCCLVersion), orDash(col.Network))
			fmt.Fprintln(tw, "size (B)\tplacement\ttime (us)\talgbw (GB/s)\tbusbw (GB/s)\tp50 (us)\tp99 (us)\tslowest rank (us)\tcheck\t")
			for _, s := range col.Sizes {
				placement := "out"
				if s.InPlace {
					placement = "in"
				}
				slowest := "-"
				if s.SlowestNanoseconds > 0 {
					slowest = fmt.Sprintf("%d (%s)", s.SlowestRank, micros(s.SlowestNanoseconds))
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Bytes, placement, micros(s.TimeNanoseconds),
					gigabytes(s.AlgbwMBps), gigabytes(s.BusbwMBps), orDash(microsOrEmpty(s.P50Nanoseconds)),
					orDash(microsOrEmpty(s.P99Nanoseconds)), slowest, checkText(col.Operation, s))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, p := range col.Peers {
				fmt.Fprintf(w, "rank %d -> rank %d: %s (%s)\n", p.FromRank, p.ToRank, p.Transport, p.Via)
			}
		}
		if cp := r.Copies; cp != nil {
			fmt.Fprintf(w, "\ncell %d, repeat %d: copies\n", c.Index, r.Repeat)
			for _, g := range cp.GPUs {
				fmt.Fprintf(w, "GPU %d: NUMA node %d, PCIe gen %d x%d\n", g.Device, g.NUMANode, g.PCIeGeneration, g.PCIeWidth)
			}
			fmt.Fprintln(tw, "GPU\tdirection\tmemory\tsize (B)\ttime (us)\tGB/s\t")
			for _, s := range cp.Sizes {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t\n", s.Device, s.Direction, orDash(string(s.HostMemory)), s.Bytes,
					micros(s.TimeNanoseconds), gigabytes(s.MegabytesPerSecond))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if err := writePeers(w, cp); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkText is a row's check outcome for people: an in-place row NCCL gives no defined result
// for says so rather than passing or failing.
func checkText(op sbv1.NCCLOperation, s sbv1.CollectiveSize) string {
	if s.Check == sbv1.NCCLCheckNotDefined {
		return "not checked (NCCL defines no in-place " + op.DataplaneName() + ")"
	}
	return string(s.Check)
}

func lastSweep(c sbv1.CellResult) *sbv1.RepeatResult {
	var last *sbv1.RepeatResult
	for i := range c.RepeatResults {
		r := &c.RepeatResults[i]
		if r.Collective == nil && r.Copies == nil {
			continue
		}
		if last == nil || r.State == sbv1.CellValid || last.State != sbv1.CellValid {
			last = r
		}
	}
	return last
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
