// Package summary parses the data plane's compact summary, the JSON object each cell pod
// writes to /dev/termination-log (docs/dataplane.md, "Outputs").
package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	Lost          int64  `json:"lost"`
	Retrans       int64  `json:"retrans"`
	CPUMasterMPct int64  `json:"cpu_master_mpct"`
	CPUTXMPct     int64  `json:"cpu_tx_mpct"`
	CPURXMPct     int64  `json:"cpu_rx_mpct"`
	GPUSMMPct     int64  `json:"gpu_sm_mpct"`
	GPUMemMPct    int64  `json:"gpu_mem_mpct"`
	// Latency percentiles of a ping-pong run (RoCE, TCP, UDP latency mode); absent elsewhere.
	LatMinNs  *int64 `json:"lat_min_ns,omitempty"`
	LatP50Ns  *int64 `json:"lat_p50_ns,omitempty"`
	LatP99Ns  *int64 `json:"lat_p99_ns,omitempty"`
	LatP999Ns *int64 `json:"lat_p999_ns,omitempty"`
	LatMaxNs  *int64 `json:"lat_max_ns,omitempty"`
	// KindParts are the parts of a kind's own results (benchkind.Results.SummaryKey: the sweep
	// of an NCCL cell on rank 0, a copy bench's rows), kept raw for the kind's Apply.
	KindParts map[string]json.RawMessage `json:"-"`
	// Wire proof (wire.go): crossed, did-not-cross, unverified; "" where the kind does not check.
	Wire       string `json:"wire,omitempty"`
	WireNote   string `json:"wire_note,omitempty"`
	TXBytesPHY int64  `json:"tx_bytes_phy,omitempty"`
	RXBytesPHY int64  `json:"rx_bytes_phy,omitempty"`
	Links      []Link `json:"links,omitempty"`
	// The host environment, on the rank asked to capture it (environment.go).
	Env *Env `json:"env,omitempty"`
	// A rate search's findings (the side that ran the trials: the client, or the in-process rank).
	Search *Search `json:"search,omitempty"`
}

// Search is the summary's "search" object (docs/ndr-search.md); its trial list is not kept here.
type Search struct {
	NDRMbps        *int64 `json:"ndr_mbps"`
	NDRBelowLower  bool   `json:"ndr_below_lower"`
	NDRAtUpper     bool   `json:"ndr_at_upper"`
	PDRPPM         int64  `json:"pdr_ppm"`
	PDRMbps        *int64 `json:"pdr_mbps"`
	Verified       bool   `json:"verified"`
	SearchTrials   int32  `json:"search_trials"`
	ResolutionMbps int64  `json:"resolution_mbps"`
}

func (s *Search) result() *sbv1.SearchResult {
	r := &sbv1.SearchResult{NDRBelowLower: s.NDRBelowLower, NDRAtUpper: s.NDRAtUpper, Verified: s.Verified,
		Trials: s.SearchTrials, ResolutionMbps: s.ResolutionMbps}
	if s.NDRMbps != nil {
		r.NDRMbps = *s.NDRMbps
	}
	if s.PDRPPM > 0 {
		r.PDRMbps = new(int64)
		if s.PDRMbps != nil {
			*r.PDRMbps = *s.PDRMbps
		}
	}
	return r
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
	return &sbv1.Latency{MinNanoseconds: d(s.LatMinNs), P50Nanoseconds: d(s.LatP50Ns), P99Nanoseconds: d(s.LatP99Ns), P999Nanoseconds: d(s.LatP999Ns), MaxNanoseconds: d(s.LatMaxNs)}
}

// maxFigure bounds a counter or rate of one rank (2^53).
const maxFigure = 1 << 53

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
	if err := s.readKindParts(msg); err != nil {
		return s, fmt.Errorf("no parsable summary in the termination message (%s): %q", err, clip(msg, 200))
	}
	// Rates, counts, times and latencies are never negative: such a summary is no measurement,
	// and refusing it here fails the attempt where the apiserver would refuse its record.
	for _, v := range []int64{s.TXBytes, s.RXBytes, s.TXPackets, s.RXPackets, s.Drops, s.SecondsMilli, s.PPS,
		s.TXMbps, s.RXMbps, s.LossPPM, s.Lost, s.Retrans} {
		if v < 0 {
			return s, fmt.Errorf("summary has negative counters: %q", clip(msg, 200))
		}
	}
	for _, p := range []*int64{s.LatMinNs, s.LatP50Ns, s.LatP99Ns, s.LatP999Ns, s.LatMaxNs} {
		if p != nil && *p < 0 {
			return s, fmt.Errorf("summary has a negative latency: %q", clip(msg, 200))
		}
	}
	// Counters and rates are summed over ranks: beyond 2^53 (JSON's exact integers, and
	// petabytes per cell) a sum could wrap an int64, so such a figure is no measurement.
	for _, v := range []int64{s.SecondsMilli, s.TXPackets, s.TXBytes, s.RXPackets, s.RXBytes, s.PPS,
		s.TXMbps, s.RXMbps, s.Drops, s.LossPPM, s.searchFigure()} {
		if v > maxFigure || v < -maxFigure {
			return s, fmt.Errorf("summary has a figure beyond 2^53 (%d): %q", v, clip(msg, 200))
		}
	}
	// Busy figures land in int32 status fields; -1 means not measured. Anything else would wrap.
	for _, v := range []int64{s.CPUMasterMPct, s.CPUTXMPct, s.CPURXMPct, s.GPUSMMPct, s.GPUMemMPct} {
		if v < -1 || v > math.MaxInt32 {
			return s, fmt.Errorf("summary has a CPU or GPU busy figure out of range (%d): %q", v, clip(msg, 200))
		}
	}
	return s, nil
}

// searchFigure is the largest rate of a search (0 without one), checked with the other figures.
func (s *Summary) searchFigure() int64 {
	if s.Search == nil {
		return 0
	}
	v := max(s.Search.ResolutionMbps, -s.Search.ResolutionMbps)
	for _, p := range []*int64{s.Search.NDRMbps, s.Search.PDRMbps} {
		if p != nil {
			v = max(v, *p, -*p)
		}
	}
	return v
}

// ParseRepeats reads the termination message of a pod that ran one or more repeats: one
// summary per repeat, one per line, in repeat order (a data plane run with --repeats). It
// returns the summaries up to the first that does not parse, and that one's error: a pod
// killed mid-write keeps the repeats it finished.
func ParseRepeats(msg string) ([]Summary, error) {
	var out []Summary
	dec := json.NewDecoder(strings.NewReader(msg))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF && len(out) > 0 {
			return out, nil
		}
		if err != nil {
			if _, perr := Parse(msg[min(int(dec.InputOffset()), len(msg)):]); perr != nil {
				err = perr // names what is there
			}
			return out, err
		}
		s, err := Parse(string(raw))
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// Part is one rank's summary and which of its counters the repeat result takes: RX counters
// from receivers, TX counters from senders (one in-process rank is both).
type Part struct {
	Summary         *Summary
	Receives, Sends bool
}

// Merge combines the summaries of an attempt's ranks (rank 0 first, none nil) into a repeat
// result: RX counts summed over the receivers, TX counts over the senders, the largest drops
// and loss of any rank, CPU per role (master from rank 0, TX from the first sender, RX from
// the first receiver), GPU from the first receiver (the workload runs there), latency from
// the first sender that timed one, and the first rank that was not Valid decides the state.
func Merge(parts []Part, repeat, attempt int32) sbv1.RepeatResult {
	first := func(want func(Part) bool) *Summary {
		for _, p := range parts {
			if want(p) {
				return p.Summary
			}
		}
		return parts[0].Summary
	}
	receiver := first(func(p Part) bool { return p.Receives })
	sender := first(func(p Part) bool { return p.Sends })
	r := sbv1.RepeatResult{Repeat: repeat, Attempt: attempt, State: sbv1.CellValid, MeasuredMilliseconds: sender.SecondsMilli}
	for _, p := range parts {
		s := p.Summary
		if p.Receives {
			r.RXMbps, r.RXPackets, r.RXBytes, r.PacketsPerSecond = r.RXMbps+s.RXMbps, r.RXPackets+s.RXPackets, r.RXBytes+s.RXBytes, r.PacketsPerSecond+s.PPS
		}
		if p.Sends {
			r.TXMbps, r.TXPackets, r.TXBytes = r.TXMbps+s.TXMbps, r.TXPackets+s.TXPackets, r.TXBytes+s.TXBytes
		}
		if s.Drops >= r.Drops { // on a tie the later rank (the sender) names the kind
			r.Drops, r.DropsKind = s.Drops, s.DropsKind
		}
		r.LossPPM = max(r.LossPPM, s.LossPPM)
		r.SequenceGaps, r.SocketRetrans = max(r.SequenceGaps, s.Lost), max(r.SocketRetrans, s.Retrans)
	}
	r.CPU = &sbv1.CPUBusy{MasterMilliPercent: int32(parts[0].Summary.CPUMasterMPct),
		TXMilliPercent: int32(sender.CPUTXMPct), RXMilliPercent: int32(receiver.CPURXMPct)}
	if receiver.GPUSMMPct >= 0 {
		r.GPU = &sbv1.GPUBusy{SMMilliPercent: int32(receiver.GPUSMMPct), MemoryMilliPercent: int32(receiver.GPUMemMPct)}
	}
	// The ping-pong is timed where it starts: the sender (or the only rank).
	if r.Latency = sender.latency(); r.Latency == nil {
		for _, p := range parts {
			if r.Latency = p.Summary.latency(); r.Latency != nil {
				break
			}
		}
	}
	applyKindParts(parts, &r)
	for _, p := range parts {
		if s := p.Summary; s.Search != nil && r.Search == nil {
			r.Search = s.Search.result()
		}
	}
	r.Wire = mergeWire(parts)
	for _, p := range parts {
		if s := p.Summary; s.State != "Valid" {
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
