package benchkind

import (
	"encoding/json"
	"fmt"
	"math"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// applyNCCL puts rank 0's "nccl" part of the summary into the repeat's collective.
func applyNCCL(part json.RawMessage, into *sbv1.RepeatResult) error {
	var n ncclSummary
	if err := json.Unmarshal(part, &n); err != nil {
		return err
	}
	into.Collective = n.collective()
	return nil
}

// ncclSummary is the "nccl" part of rank 0's summary: the sweep merged over every NCCL rank
// (dataplane/src/transports/nccl), compact so that 128 rows fit the 4 KiB termination message.
type ncclSummary struct {
	Op      string `json:"op"`
	Ranks   int32  `json:"ranks"`
	Version string `json:"version"`
	Network string `json:"network"`
	// Rows are [bytes, in_place (0/1), time_ns, algbw_mbps, busbw_mbps, wrong (-1 unchecked)].
	Rows [][6]int64 `json:"rows"`
	// Iter pairs with Rows by index: [p50, p99, slowest_rank, slowest], the times per mille off
	// the row's time_ns. Absent when the data plane dropped it to fit the 4 KiB message.
	Iter  [][4]int64 `json:"iter"`
	Peers []ncclPeer `json:"peers"`
}

// offPerMille is time_ns moved by perMille thousandths (-1000: nothing measured, 0).
func offPerMille(timeNs, perMille int64) int64 {
	return int64(math.Round(float64(timeNs) * float64(1000+perMille) / 1000))
}

// ncclPeer is [from, to, "NET/IB", "NET/IB/0/GDRDMA"].
type ncclPeer struct {
	From, To       int32
	Transport, Via string
}

// UnmarshalJSON reads the four-element array form.
func (p *ncclPeer) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 4 {
		return fmt.Errorf("nccl peer %s: want [from, to, transport, via]", b)
	}
	for i, dst := range []any{&p.From, &p.To, &p.Transport, &p.Via} {
		if err := json.Unmarshal(raw[i], dst); err != nil {
			return fmt.Errorf("nccl peer %s: %w", b, err)
		}
	}
	return nil
}

// collective turns rank 0's NCCL part into the status' rows.
func (n *ncclSummary) collective() *sbv1.CollectiveResult {
	op, _ := sbv1.NCCLOperationNamed(n.Op)
	r := &sbv1.CollectiveResult{Operation: op, Ranks: n.Ranks, NCCLVersion: clip(n.Version, 60), Network: clip(n.Network, 60)}
	for i, row := range n.Rows {
		size := sbv1.CollectiveSize{Bytes: row[0], InPlace: row[1] != 0, TimeNanoseconds: row[2], AlgbwMBps: row[3],
			BusbwMBps: row[4], Check: sbv1.NCCLCheckPassed}
		if i < len(n.Iter) {
			it := n.Iter[i]
			size.P50Nanoseconds, size.P99Nanoseconds = offPerMille(row[2], it[0]), offPerMille(row[2], it[1])
			size.SlowestRank, size.SlowestNanoseconds = int32(it[2]), offPerMille(row[2], it[3])
		}
		switch {
		case row[5] < 0 && size.InPlace && !op.DefinesInPlace():
			size.Check = sbv1.NCCLCheckNotDefined
		case row[5] < 0:
			size.Check = sbv1.NCCLCheckNotChecked
		case row[5] > 0:
			size.Check, size.WrongElements = sbv1.NCCLCheckFailed, row[5]
		}
		if len(r.Sizes) < 128 {
			r.Sizes = append(r.Sizes, size)
		}
	}
	for _, p := range n.Peers {
		if len(r.Peers) < 64 {
			r.Peers = append(r.Peers, sbv1.PeerTransport{FromRank: p.From, ToRank: p.To, Transport: clip(p.Transport, 28), Via: clip(p.Via, 60)})
		}
	}
	return r
}

// ncclResults: rank 0's sweep, collectives.csv and nccl-tests' table per cell.
var ncclResults = Results{
	SummaryKey:  "nccl",
	Apply:       applyNCCL,
	Has:         func(r *sbv1.RepeatResult) bool { return r.Collective != nil },
	WriteRepeat: writeCollective,
	Files:       []File{{CollectivesFile, CollectivesCSV}, {NCCLTestsFile, NCCLTestsJSON}},
}
