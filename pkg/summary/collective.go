package summary

import (
	"encoding/json"
	"fmt"
	"math"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// NCCL is the "nccl" part of rank 0's summary: the sweep merged over every NCCL rank
// (dataplane/src/transports/nccl), compact so that 128 rows fit the 4 KiB termination message.
type NCCL struct {
	Op      string `json:"op"`
	Ranks   int32  `json:"ranks"`
	Version string `json:"version"`
	Network string `json:"network"`
	// Rows are [bytes, in_place (0/1), time_ns, algbw_mbps, busbw_mbps, wrong (-1 unchecked)].
	Rows [][6]int64 `json:"rows"`
	// Iter pairs with Rows by index: [p50, p99, slowest_rank, slowest], the times per mille off
	// the row's time_ns. Absent when the data plane dropped it to fit the 4 KiB message.
	Iter  [][4]int64 `json:"iter"`
	Peers []Peer     `json:"peers"`
}

// offPerMille is time_ns moved by perMille thousandths (-1000: nothing measured, 0).
func offPerMille(timeNs, perMille int64) int64 {
	return int64(math.Round(float64(timeNs) * float64(1000+perMille) / 1000))
}

// Peer is [from, to, "NET/IB", "NET/IB/0/GDRDMA"].
type Peer struct {
	From, To       int32
	Transport, Via string
}

// UnmarshalJSON reads the four-element array form.
func (p *Peer) UnmarshalJSON(b []byte) error {
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

// GPUCopy is the "gpucopy" part of a copy bench's summary.
type GPUCopy struct {
	// GPUs are [device, numa_node, pcie_generation, pcie_width].
	GPUs [][4]int32 `json:"gpus"`
	Rows []CopyRow  `json:"rows"`
	// the GPU-to-GPU matrices and the host aggregate (gpucopy_peers.go)
	CopyPeers
}

// CopyRow is [device, "h2d", "pinned" (or "device" for d2d), bytes, time_ns, mbps].
type CopyRow struct {
	Device                       int32
	Direction, Memory            string
	Bytes, TimeNs, MegabytesPerS int64
}

// UnmarshalJSON reads the six-element array form.
func (c *CopyRow) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 6 {
		return fmt.Errorf("gpucopy row %s: want [device, direction, memory, bytes, time_ns, mbps]", b)
	}
	for i, dst := range []any{&c.Device, &c.Direction, &c.Memory, &c.Bytes, &c.TimeNs, &c.MegabytesPerS} {
		if err := json.Unmarshal(raw[i], dst); err != nil {
			return fmt.Errorf("gpucopy row %s: %w", b, err)
		}
	}
	return nil
}

// collective turns rank 0's NCCL part into the status' rows.
func (n *NCCL) collective() *sbv1.CollectiveResult {
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

// copies turns a copy bench's part into the status' rows.
func (g *GPUCopy) copies() *sbv1.CopyResult {
	r := &sbv1.CopyResult{}
	for _, gpu := range g.GPUs {
		if len(r.GPUs) < 8 {
			r.GPUs = append(r.GPUs, sbv1.GPUPlacement{Device: gpu[0], NUMANode: gpu[1], PCIeGeneration: gpu[2], PCIeWidth: gpu[3]})
		}
	}
	directions := map[string]sbv1.CopyDirection{"h2d": "H2D", "d2h": "D2H", "d2d": "D2D"}
	memories := map[string]sbv1.CopyHostMemory{"pinned": "Pinned", "pageable": "Pageable"}
	for _, row := range g.Rows {
		if len(r.Sizes) < 512 {
			r.Sizes = append(r.Sizes, sbv1.CopySize{Device: row.Device, Direction: directions[row.Direction],
				HostMemory: memories[row.Memory], Bytes: row.Bytes, TimeNanoseconds: row.TimeNs, MegabytesPerSecond: row.MegabytesPerS})
		}
	}
	g.CopyPeers.addTo(r)
	return r
}
