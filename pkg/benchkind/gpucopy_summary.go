package benchkind

import (
	"encoding/json"
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// applyGPUCopy puts a copy bench's "gpucopy" part of the summary into the repeat's copies.
func applyGPUCopy(part json.RawMessage, into *sbv1.RepeatResult) error {
	var g gpuCopySummary
	if err := json.Unmarshal(part, &g); err != nil {
		return err
	}
	into.Copies = g.copies()
	return nil
}

// gpuCopySummary is the "gpucopy" part of a copy bench's summary.
type gpuCopySummary struct {
	// GPUs are [device, numa_node, pcie_generation, pcie_width].
	GPUs [][4]int32 `json:"gpus"`
	Rows []copyRow  `json:"rows"`
	// the GPU-to-GPU matrices and the host aggregate (gpucopy_peers_summary.go)
	copyPeers
	// each GPU alone: latency, SM read / write (gpucopy_local_summary.go)
	copyLocal
}

// copyRow is [device, "h2d", "pinned" (or "device" for d2d), bytes, time_ns, mbps].
type copyRow struct {
	Device                       int32
	Direction, Memory            string
	Bytes, TimeNs, MegabytesPerS int64
}

// UnmarshalJSON reads the six-element array form.
func (c *copyRow) UnmarshalJSON(b []byte) error {
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

// copies turns a copy bench's part into the status' rows.
func (g *gpuCopySummary) copies() *sbv1.CopyResult {
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
	g.copyPeers.addTo(r)
	g.copyLocal.addTo(r)
	return r
}

// gpucopyResults: the copy rows and GPU-to-GPU matrices, their files, table and heatmaps.
var gpucopyResults = Results{
	SummaryKey:  "gpucopy",
	Apply:       applyGPUCopy,
	Has:         func(r *sbv1.RepeatResult) bool { return r.Copies != nil },
	WriteRepeat: writeCopies,
	Heatmaps:    copyHeatmaps,
	Tables:      hostAggregateTables,
	Files:       []File{{CopiesFile, CopiesCSV}, {CopyPeersFile, PeerCSV}, {HostAggregateFile, HostAggregateCSV}},
}
