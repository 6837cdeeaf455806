package benchkind

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// CollectivesFile is an NCCL bench's file beside runs.csv.
const CollectivesFile = "collectives.csv"

// CollectiveColumns are collectives.csv's: one row per cell, repeat, size and placement of an
// NCCL bench, with nccl-tests' figures (time in us, algbw and busbw in GB/s), the check, the
// transports NCCL chose between the ranks ("P2P/NVLink", "NET/IB", ... joined by "+"), the
// per-iteration p50 and p99, and the rank with the largest mean time and that time (empty when
// not measured).
var CollectiveColumns = []string{"cell", "rep", "op", "size", "placement", "time_us", "algbw", "busbw", "check",
	"wrong", "ranks", "nccl_version", "state", "transports", "p50_us", "p99_us", "slowest_rank", "slowest_us"}

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
				rows = append(rows, []string{itoa64(int64(c.Index)), itoa64(int64(r.Repeat)), r.Collective.Operation.DataplaneName(),
					itoa64(s.Bytes), placement, Micros(s.TimeNanoseconds), Gigabytes(s.AlgbwMBps), Gigabytes(s.BusbwMBps), string(s.Check),
					itoa64(s.WrongElements), itoa64(int64(r.Collective.Ranks)), r.Collective.NCCLVersion, string(r.State), transports,
					MicrosOrEmpty(s.P50Nanoseconds), MicrosOrEmpty(s.P99Nanoseconds), slowestRank(s), MicrosOrEmpty(s.SlowestNanoseconds)})
			}
		}
	}
	return CSVOf(CollectiveColumns, rows)
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

// slowestRank is the row's slowest rank, or "" when the row has none.
func slowestRank(s sbv1.CollectiveSize) string {
	if s.SlowestNanoseconds <= 0 {
		return ""
	}
	return itoa64(int64(s.SlowestRank))
}

// writeCollective prints nccl-tests' table of one repeat's sweep and the transports NCCL chose.
func writeCollective(w io.Writer, c sbv1.CellResult, r *sbv1.RepeatResult) error {
	col := r.Collective
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "\ncell %d, repeat %d: %s, %d ranks, NCCL %s, network %s\n", c.Index, r.Repeat,
		col.Operation.DataplaneName(), col.Ranks, OrDash(col.NCCLVersion), OrDash(col.Network))
	fmt.Fprintln(tw, "size (B)\tplacement\ttime (us)\talgbw (GB/s)\tbusbw (GB/s)\tp50 (us)\tp99 (us)\tslowest rank (us)\tcheck\t")
	for _, s := range col.Sizes {
		placement := "out"
		if s.InPlace {
			placement = "in"
		}
		slowest := "-"
		if s.SlowestNanoseconds > 0 {
			slowest = fmt.Sprintf("%d (%s)", s.SlowestRank, Micros(s.SlowestNanoseconds))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Bytes, placement, Micros(s.TimeNanoseconds),
			Gigabytes(s.AlgbwMBps), Gigabytes(s.BusbwMBps), OrDash(MicrosOrEmpty(s.P50Nanoseconds)),
			OrDash(MicrosOrEmpty(s.P99Nanoseconds)), slowest, checkText(col.Operation, s))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range col.Peers {
		fmt.Fprintf(w, "rank %d -> rank %d: %s (%s)\n", p.FromRank, p.ToRank, p.Transport, p.Via)
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
