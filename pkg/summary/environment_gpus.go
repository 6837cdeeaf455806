package summary

import (
	"bytes"
	"encoding/json"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// EnvGPUFacts is one GPU the data plane's process sees; -1 means not known. The summary writes
// it as one row of numbers (dataplane/src/output/environment_json.hpp kCompactGpuColumns, this
// order), the record as an object with those keys and every NVLink's rate.
type EnvGPUFacts struct {
	PCIAddress                 string
	PCIeGen, PCIeMaxGen        int64
	PCIeWidth, PCIeMaxWidth    int64
	MPS, MPSMax                int64
	PState                     int64
	NVLinks, NVLinksActive     int64
	NVLinkMinMBps              int64 // the slowest active link, MB/s
	RetiredPages               int64
	RetiredPending             int64 // 1 pending, 0 not
	RemappedRows, RemapPending int64
}

// gpuColumns are the row's columns after the address, the pointers in kCompactGpuColumns' order.
func (g *EnvGPUFacts) gpuColumns() []*int64 {
	return []*int64{&g.PCIeGen, &g.PCIeMaxGen, &g.PCIeWidth, &g.PCIeMaxWidth, &g.MPS, &g.MPSMax, &g.PState,
		&g.NVLinks, &g.NVLinksActive, &g.NVLinkMinMBps, &g.RetiredPages, &g.RetiredPending, &g.RemappedRows, &g.RemapPending}
}

// UnmarshalJSON reads the summary's row or the record's object. A row with fewer columns (an
// older data plane) leaves the rest unknown; more (a newer one) are ignored. What does not parse
// stays unknown: a GPU's facts never make the whole summary unreadable.
func (g *EnvGPUFacts) UnmarshalJSON(data []byte) error {
	cols := g.gpuColumns()
	for _, c := range cols {
		*c = -1
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		var o struct {
			PCIAddress     string  `json:"pci_address"`
			PCIeGen        *int64  `json:"pcie_gen"`
			PCIeMaxGen     *int64  `json:"pcie_max_gen"`
			PCIeWidth      *int64  `json:"pcie_width"`
			PCIeMaxWidth   *int64  `json:"pcie_max_width"`
			MPS            *int64  `json:"pcie_mps"`
			MPSMax         *int64  `json:"pcie_mps_max"`
			PState         *int64  `json:"pstate"`
			NVLinks        *int64  `json:"nvlinks"`
			NVLinksActive  *int64  `json:"nvlinks_active"`
			NVLinkRates    []int64 `json:"nvlink_mbyte_s"`
			RetiredPages   *int64  `json:"retired_pages"`
			RetiredPending *int64  `json:"retired_pending"`
			RemappedRows   *int64  `json:"remapped_rows"`
			RemapPending   *int64  `json:"remap_pending"`
		}
		if json.Unmarshal(data, &o) != nil {
			return nil
		}
		g.PCIAddress = o.PCIAddress
		slowest := int64(-1)
		for _, r := range o.NVLinkRates {
			if r >= 0 && (slowest < 0 || r < slowest) {
				slowest = r
			}
		}
		for i, v := range []*int64{o.PCIeGen, o.PCIeMaxGen, o.PCIeWidth, o.PCIeMaxWidth, o.MPS, o.MPSMax, o.PState,
			o.NVLinks, o.NVLinksActive, &slowest, o.RetiredPages, o.RetiredPending, o.RemappedRows, o.RemapPending} {
			if v != nil {
				*cols[i] = *v
			}
		}
		return nil
	}
	var row []json.RawMessage
	if json.Unmarshal(data, &row) != nil || len(row) == 0 {
		return nil // not a row: nothing known of this GPU
	}
	_ = json.Unmarshal(row[0], &g.PCIAddress)
	for i, c := range cols {
		if i+1 < len(row) && json.Unmarshal(row[i+1], c) != nil {
			*c = -1
		}
	}
	return nil
}

// maxStatusGPUs is the API's bound on environment.gpus.
const maxStatusGPUs = 16

func flag(v int64) *bool {
	if v < 0 {
		return nil
	}
	b := v > 0
	return &b
}

func count(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// fillGPUs writes the visible GPUs: their count (unset when NVML was not available) and each
// one's facts, at most the API's 16.
func (e *Env) fillGPUs(d *sbv1.EnvironmentDetail) {
	d.GPUsNote = clip(e.GPUsNote, 250)
	d.GPUs, d.GPUCount = nil, nil
	if e.GPUs == nil {
		return
	}
	n := known(int64(len(e.GPUs)))
	d.GPUCount = &n
	for _, g := range e.GPUs {
		if len(d.GPUs) == maxStatusGPUs {
			break
		}
		out := sbv1.GPUEnvironment{PCIAddress: clip(g.PCIAddress, 60),
			PCIeWidth: known(g.PCIeWidth), PCIeGeneration: known(g.PCIeGen),
			PCIeMaxWidth: known(g.PCIeMaxWidth), PCIeMaxGeneration: known(g.PCIeMaxGen),
			MaxPayloadBytes: known(g.MPS), MaxPayloadSupportedBytes: known(g.MPSMax),
			NVLinks: min(known(g.NVLinks), 18), NVLinksActive: min(known(g.NVLinksActive), 18),
			NVLinkMinMegabytesPerSec: max(g.NVLinkMinMBps, 0),
			RetiredPages:             count(g.RetiredPages), RetiredPagesPending: flag(g.RetiredPending),
			RemappedRows: count(g.RemappedRows), RowRemapPending: flag(g.RemapPending)}
		if g.PState >= 0 && g.PState <= 15 {
			p := int32(g.PState)
			out.PerformanceState = &p
		}
		d.GPUs = append(d.GPUs, out)
	}
}
