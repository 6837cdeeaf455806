package v1alpha1

import "encoding/json"

// The JSON of a cell's busy shares and parameters leaves out what says nothing: a share the data
// plane could not measure (Go keeps it as -1, so every reader still tells unknown from 0) and a
// parameter at its usual value (batch 1, pairs 1, queues 1,1, unpaced, workload None).
// `kubectl describe sb` prints each status field on a line of its own; these placeholders made
// up a quarter of a cell's lines.

// unknownShare stands in Go for a busy share that is absent from the JSON.
const unknownShare = -1

func shareOut(v int32) *int32 {
	if v < 0 {
		return nil
	}
	return &v
}

func shareIn(v *int32) int32 {
	if v == nil {
		return unknownShare
	}
	return *v
}

type cpuBusyJSON struct {
	Master *int32 `json:"masterMilliPercent,omitempty"`
	TX     *int32 `json:"txMilliPercent,omitempty"`
	RX     *int32 `json:"rxMilliPercent,omitempty"`
}

// MarshalJSON leaves out the shares of sides that pinned no core.
func (c CPUBusy) MarshalJSON() ([]byte, error) {
	return json.Marshal(cpuBusyJSON{shareOut(c.MasterMilliPercent), shareOut(c.TXMilliPercent), shareOut(c.RXMilliPercent)})
}

// UnmarshalJSON reads an absent share as -1, unknown.
func (c *CPUBusy) UnmarshalJSON(b []byte) error {
	var j cpuBusyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = CPUBusy{MasterMilliPercent: shareIn(j.Master), TXMilliPercent: shareIn(j.TX), RXMilliPercent: shareIn(j.RX)}
	return nil
}

type gpuBusyJSON struct {
	SM     *int32 `json:"smMilliPercent,omitempty"`
	Memory *int32 `json:"memoryMilliPercent,omitempty"`
}

// MarshalJSON leaves out what NVML could not tell.
func (g GPUBusy) MarshalJSON() ([]byte, error) {
	return json.Marshal(gpuBusyJSON{shareOut(g.SMMilliPercent), shareOut(g.MemoryMilliPercent)})
}

// UnmarshalJSON reads an absent share as -1, unknown.
func (g *GPUBusy) UnmarshalJSON(b []byte) error {
	var j gpuBusyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*g = GPUBusy{SMMilliPercent: shareIn(j.SM), MemoryMilliPercent: shareIn(j.Memory)}
	return nil
}

// cellParametersJSON is CellParameters with the fields that have a usual value optional.
type cellParametersJSON struct {
	PayloadBytes       int32        `json:"payloadBytes"`
	Batch              *int32       `json:"batch,omitempty"`
	Pairs              *int32       `json:"pairs,omitempty"`
	Queues             *QueueCell   `json:"queues,omitempty"`
	TargetRateMbps     int32        `json:"targetRateMbps,omitempty"`
	Workload           WorkloadKind `json:"workload,omitempty"`
	WorkloadBatchBytes int32        `json:"workloadBatchBytes,omitempty"`
	ForwardWork        ForwardWork  `json:"forwardWork,omitempty"`
	Memory             MemoryKind   `json:"memory,omitempty"`
}

// MarshalJSON leaves out batch 1, pairs 1, queues 1,1, an unpaced target and workload None.
func (p CellParameters) MarshalJSON() ([]byte, error) {
	j := cellParametersJSON{PayloadBytes: p.PayloadBytes, TargetRateMbps: p.TargetRateMbps,
		WorkloadBatchBytes: p.WorkloadBatchBytes, ForwardWork: p.ForwardWork, Memory: p.Memory}
	if p.Batch != 1 {
		j.Batch = &p.Batch
	}
	if p.Pairs != 1 {
		j.Pairs = &p.Pairs
	}
	if p.Queues != (QueueCell{TX: 1, RX: 1}) {
		j.Queues = &p.Queues
	}
	if p.Workload != WorkloadNone {
		j.Workload = p.Workload
	}
	return json.Marshal(j)
}

// UnmarshalJSON gives the fields left out their usual value.
func (p *CellParameters) UnmarshalJSON(b []byte) error {
	var j cellParametersJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = CellParameters{PayloadBytes: j.PayloadBytes, Batch: 1, Pairs: 1, Queues: QueueCell{TX: 1, RX: 1},
		TargetRateMbps: j.TargetRateMbps, Workload: WorkloadNone, WorkloadBatchBytes: j.WorkloadBatchBytes,
		ForwardWork: j.ForwardWork, Memory: j.Memory}
	if j.Batch != nil {
		p.Batch = *j.Batch
	}
	if j.Pairs != nil {
		p.Pairs = *j.Pairs
	}
	if j.Queues != nil {
		p.Queues = *j.Queues
	}
	if j.Workload != "" {
		p.Workload = j.Workload
	}
	return nil
}
