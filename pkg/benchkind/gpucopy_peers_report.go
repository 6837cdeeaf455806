package benchkind

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// CopyPeersFile and HostAggregateFile are the GPUCopy bench's GPU-to-GPU files beside copies.csv.
const (
	CopyPeersFile     = "copy-peers.csv"
	HostAggregateFile = "copy-host-aggregate.csv"
)

// PeerColumns are copy-peers.csv's: one row per cell, repeat, matrix (method, mode, size) and
// ordered pair of GPUs, with the pair's path.
var PeerColumns = []string{"cell", "rep", "method", "mode", "size", "src", "dst", "gbps", "path", "peer_access", "state"}

// HostAggregateColumns are copy-host-aggregate.csv's: one row per cell, repeat, direction and
// GPU (alone, and while every GPU copies), then device "all": the sum of the GPUs alone and the
// aggregate.
var HostAggregateColumns = []string{"cell", "rep", "direction", "size", "device", "alone_gbps", "together_gbps", "state"}

// PeerCSV renders the GPU-to-GPU matrices of a GPUCopy bench, long form; nil when none.
func PeerCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var rows [][]string
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			cp := r.Copies
			if cp == nil {
				continue
			}
			for _, m := range cp.PeerMatrices {
				for s, row := range m.MegabytesPerSecond {
					for d, mbps := range row {
						if s == d {
							continue
						}
						a, b := deviceAt(cp, s), deviceAt(cp, d)
						path, access := pairPath(cp, a, b)
						gbps := ""
						if mbps >= 0 {
							gbps = Gigabytes(mbps)
						}
						rows = append(rows, []string{itoa64(int64(c.Index)), itoa64(int64(r.Repeat)), string(m.Method), string(m.Mode),
							itoa64(m.Bytes), itoa64(int64(a)), itoa64(int64(b)), gbps, path, access, string(r.State)})
					}
				}
			}
		}
	}
	return CSVOf(PeerColumns, rows)
}

// HostAggregateCSV renders every GPU with the host at once against each alone; nil when none.
func HostAggregateCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var rows [][]string
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Copies == nil {
				continue
			}
			for _, h := range r.Copies.HostAggregate {
				row := func(device, alone, together string) {
					rows = append(rows, []string{itoa64(int64(c.Index)), itoa64(int64(r.Repeat)), string(h.Direction), itoa64(h.Bytes),
						device, alone, together, string(r.State)})
				}
				var sum int64
				for i, alone := range h.AloneMBps {
					together := ""
					if i < len(h.TogetherMBps) {
						together = Gigabytes(h.TogetherMBps[i])
					}
					row(itoa64(int64(deviceAt(r.Copies, i))), Gigabytes(alone), together)
					sum += alone
				}
				row("all", Gigabytes(sum), Gigabytes(h.AggregateMBps))
			}
		}
	}
	return CSVOf(HostAggregateColumns, rows)
}

// deviceAt is the CUDA index of the i-th GPU (matrix rows and columns follow status' gpus).
func deviceAt(cp *sbv1.CopyResult, i int) int32 {
	if i < len(cp.GPUs) {
		return cp.GPUs[i].Device
	}
	return int32(i)
}

// pairPath is the path between two GPUs and whether they have peer access ("" when not recorded).
func pairPath(cp *sbv1.CopyResult, a, b int32) (path, access string) {
	for _, l := range cp.PeerLinks {
		if (l.DeviceA == a && l.DeviceB == b) || (l.DeviceA == b && l.DeviceB == a) {
			return l.Path, fmt.Sprint(l.PeerAccess)
		}
	}
	return "", ""
}

// writeCopyPeers prints a repeat's matrices (GB/s, rows source, columns destination), the pairs'
// paths and the host aggregate after its copies table.
func writeCopyPeers(w io.Writer, cp *sbv1.CopyResult) error {
	for _, l := range cp.PeerLinks {
		fmt.Fprintf(w, "GPU %d <-> GPU %d: %s, peer access %t\n", l.DeviceA, l.DeviceB, l.Path, l.PeerAccess)
	}
	for _, m := range cp.PeerMatrices {
		fmt.Fprintf(w, "%s %s, %d B per copy, GB/s (rows: source GPU, columns: destination)\n", m.Method, m.Mode, m.Bytes)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		head := []string{"src\\dst"}
		for i := range m.MegabytesPerSecond {
			head = append(head, itoa64(int64(deviceAt(cp, i))))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for s, row := range m.MegabytesPerSecond {
			cells := []string{itoa64(int64(deviceAt(cp, s)))}
			for _, mbps := range row {
				cells = append(cells, map[bool]string{true: "-", false: Gigabytes(mbps)}[mbps < 0])
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, h := range cp.HostAggregate {
		fmt.Fprintf(w, "all GPUs %s at once, %d B per copy: aggregate %s GB/s", h.Direction, h.Bytes, Gigabytes(h.AggregateMBps))
		for i, alone := range h.AloneMBps {
			if i < len(h.TogetherMBps) {
				fmt.Fprintf(w, "; GPU %d %s (alone %s)", deviceAt(cp, i), Gigabytes(h.TogetherMBps[i]), Gigabytes(alone))
			}
		}
		fmt.Fprintln(w)
	}
	if cp.PeerNote != "" {
		fmt.Fprintf(w, "note: %s\n", cp.PeerNote)
	}
	return nil
}
