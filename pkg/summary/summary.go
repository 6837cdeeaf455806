// Package summary parses the data plane's compact summary, the JSON object each cell pod
// writes to /dev/termination-log (docs/dataplane.md, "Summary file").
package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Summary is one side's report of one run. Integers carry their unit in the name.
type Summary struct {
	V             int    `json:"v"`
	Transport     string `json:"transport"`
	Role          string `json:"role"`
	State         string `json:"state"`
	Reason        string `json:"reason"`
	SecondsMilli  int64  `json:"seconds_milli"`
	PayloadBytes  int64  `json:"payload_bytes"`
	Pairs         int64  `json:"pairs"`
	TargetMbps    int64  `json:"target_mbps"`
	TXPackets     int64  `json:"tx_packets"`
	TXBytes       int64  `json:"tx_bytes"`
	RXPackets     int64  `json:"rx_packets"`
	RXBytes       int64  `json:"rx_bytes"`
	PPS           int64  `json:"pps"`
	TXMbps        int64  `json:"tx_mbps"`
	RXMbps        int64  `json:"rx_mbps"`
	Drops         int64  `json:"drops"`
	DropsKind     string `json:"drops_kind"`
	LossPPM       int64  `json:"loss_ppm"`
	CPUMasterMPct int64  `json:"cpu_master_mpct"`
	CPUTXMPct     int64  `json:"cpu_tx_mpct"`
	CPURXMPct     int64  `json:"cpu_rx_mpct"`
	GPUSMMPct     int64  `json:"gpu_sm_mpct"`
	GPUMemMPct    int64  `json:"gpu_mem_mpct"`
	// Latency percentiles of a RoCE ping-pong run; absent elsewhere.
	LatMinNs *int64 `json:"lat_min_ns,omitempty"`
	LatP50Ns *int64 `json:"lat_p50_ns,omitempty"`
	LatP99Ns *int64 `json:"lat_p99_ns,omitempty"`
	LatMaxNs *int64 `json:"lat_max_ns,omitempty"`
}

func (s *Summary) latency() *sbv1.Latency {
	if s == nil || s.LatP50Ns == nil {
		return nil
	}
	d := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	return &sbv1.Latency{MinNanoseconds: d(s.LatMinNs), P50Nanoseconds: d(s.LatP50Ns), P99Nanoseconds: d(s.LatP99Ns), MaxNanoseconds: d(s.LatMaxNs)}
}

// Parse reads a termination message. It refuses anything that is not a complete version-1
// summary, so a crashed pod's log tail never passes for a result.
func Parse(msg string) (Summary, error) {
	var s Summary
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(msg))))
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("no parsable summary in the termination message (%s): %q", err, clip(msg, 200))
	}
	if s.V != 1 {
		return s, fmt.Errorf("summary version %d, want 1", s.V)
	}
	switch s.State {
	case "Valid", "Invalid", "Failed":
	default:
		return s, fmt.Errorf("summary state %q is not Valid, Invalid or Failed", s.State)
	}
	if s.TXBytes < 0 || s.RXBytes < 0 || s.TXPackets < 0 || s.RXPackets < 0 || s.Drops < 0 {
		return s, fmt.Errorf("summary has negative counters: %q", clip(msg, 200))
	}
	// Busy figures land in int32 status fields; -1 means not measured. Anything else would wrap.
	for _, v := range []int64{s.CPUMasterMPct, s.CPUTXMPct, s.CPURXMPct, s.GPUSMMPct, s.GPUMemMPct} {
		if v < -1 || v > math.MaxInt32 {
			return s, fmt.Errorf("summary has a CPU or GPU busy figure out of range (%d): %q", v, clip(msg, 200))
		}
	}
	return s, nil
}

// Merge combines the server's and client's summaries of one run into a repeat result: the
// sender's counts from the client, the receiver's from the server, and the worse state.
// Either side may be nil (RawEthernet and loopback runs have one pod).
func Merge(server, client *Summary, repeat, attempt int32) sbv1.RepeatResult {
	base := client
	if base == nil {
		base = server
	}
	r := sbv1.RepeatResult{
		Repeat: repeat, Attempt: attempt,
		State:                sbv1.CellValid,
		MeasuredMilliseconds: base.SecondsMilli,
		TXMbps:               base.TXMbps, TXPackets: base.TXPackets, TXBytes: base.TXBytes,
		RXMbps: base.RXMbps, RXPackets: base.RXPackets, RXBytes: base.RXBytes, PacketsPerSecond: base.PPS,
		Drops: base.Drops, DropsKind: base.DropsKind, LossPPM: base.LossPPM,
	}
	cpu := sbv1.CPUBusy{MasterMilliPercent: int32(base.CPUMasterMPct), TXMilliPercent: int32(base.CPUTXMPct), RXMilliPercent: int32(base.CPURXMPct)}
	if server != nil && client != nil {
		// The receiver knows what arrived; the sender knows what left and what it retransmitted.
		r.RXMbps, r.RXPackets, r.RXBytes, r.PacketsPerSecond = server.RXMbps, server.RXPackets, server.RXBytes, server.PPS
		r.TXMbps, r.TXPackets, r.TXBytes = client.TXMbps, client.TXPackets, client.TXBytes
		if server.Drops > client.Drops {
			r.Drops, r.DropsKind = server.Drops, server.DropsKind
		}
		r.LossPPM = max(server.LossPPM, client.LossPPM)
		cpu = sbv1.CPUBusy{MasterMilliPercent: int32(server.CPUMasterMPct), TXMilliPercent: int32(client.CPUTXMPct), RXMilliPercent: int32(server.CPURXMPct)}
	}
	r.CPU = &cpu
	gpuSide := base
	if server != nil {
		gpuSide = server // the GPU workload runs on the receiver
	}
	if gpuSide.GPUSMMPct >= 0 {
		r.GPU = &sbv1.GPUBusy{SMMilliPercent: int32(gpuSide.GPUSMMPct), MemoryMilliPercent: int32(gpuSide.GPUMemMPct)}
	}
	// The ping-pong is timed where it starts: the client (or the only side).
	if r.Latency = client.latency(); r.Latency == nil {
		r.Latency = server.latency()
	}
	for _, s := range []*Summary{server, client} {
		if s != nil && s.State != "Valid" {
			r.State = sbv1.CellInvalid
			r.Message = clip(s.Role+": "+s.Reason, 500)
			break
		}
	}
	return r
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
