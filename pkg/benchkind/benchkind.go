// Package benchkind describes each bench kind (one per transport, six today: RawEthernet, RoCE,
// TCP, UDP, NCCL and GPUCopy) in one place: the pods (ranks) of an attempt, the data plane's
// --transport value, DAQIRI's backend name, the headline cell, the Sweep preset, the kind's own
// data plane flags, what admission allows it (Admission) and how its own results come back
// (Results: its summary part, bucket files, table lines and figures). Each kind registers
// a Profile in init() from its own files; the planner, the pod builder, the summary parser, the
// report writer and the figures consult the registry and never switch on a transport's name.
package benchkind

import (
	"fmt"
	"sort"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Profile is everything the operator knows about one bench kind.
type Profile struct {
	// Transport is the spec.transport value the kind answers to.
	Transport sbv1.Transport
	// DataplaneTransport is the value of spiral-dataplane's --transport flag.
	DataplaneTransport string
	// Backend is DAQIRI's name for the kind's engine: the backend column of runs.csv. It and
	// the three flags below match the data plane's kind (dataplane/src/transports/*/*_kind.cpp).
	Backend string
	// CountsReceiver: DAQIRI's packets, bytes, pps and gbps columns are the receiver's counts
	// (its dpdk backend) rather than the sender's totals (its rdma and socket backends).
	CountsReceiver bool
	// Sequenced: the traffic carries sequence numbers, so runs.csv's seq_gaps applies.
	Sequenced bool
	// SocketRetrans: the sending sockets report retransmits, so runs.csv's socket_retrans applies.
	SocketRetrans bool
	// LiveFigures: the data plane prints progress lines while a repeat measures (both sides of
	// a two-sided run, the one process of an in-process run), so sbctl watch draws live bars.
	// The kinds of ranks (NCCL, GPU copies) report at the end of each size sweep only.
	LiveFigures bool
	// RepeatsPerAttempt is how many repeats of a cell one attempt's pods run back to back
	// (spiral-dataplane --repeats, one summary line each), saving a pod start per repeat; 0
	// or 1: one repeat per attempt. Only kinds whose engine opens again in the same process.
	RepeatsPerAttempt int32
	// Ranks lists the pods of one attempt, rank 0 (the rendezvous) first; see Rank.
	Ranks func(spec *sbv1.SpiralBenchSpec) []Rank
	// Headline is the cell DAQIRI's Spark summary reports for the kind. Every preset starts
	// from it, and the plan marks the first cell with these parameters.
	Headline sbv1.CellParameters
	// Sweep is what the Sweep preset varies; an empty list keeps the headline's value.
	Sweep Dimensions
	// Flags renders the kind's own data plane flags for one rank (after the common ones).
	// Nil means the kind has none.
	Flags func(spec *sbv1.SpiralBenchSpec, p sbv1.CellParameters, r Rank) []string
	// Describe names the kind's own cell coordinates after the payload, e.g. " x 4 pairs";
	// nil adds nothing.
	Describe func(p sbv1.CellParameters) string
	// EchoedPairs is the pair count the data plane's summary echoes for a cell, where the
	// kind's flags set it from elsewhere than the cell's pairs; nil: the cell's pairs.
	EchoedPairs func(spec *sbv1.SpiralBenchSpec, p sbv1.CellParameters) int32
	// StreamName is what the kind's parallel streams are called in live views ("pair", "qp");
	// "" reads "queue".
	StreamName string
	// Results is how the kind's own results come back (results.go); nil: only the counters
	// every kind shares.
	Results *Results
	// Admission is what the CRD lets a spec of the kind ask for (admission.go).
	Admission Admission
}

// Pairs is the pair count a cell's summaries echo (EchoedPairs, else the cell's, at least 1).
func (k Profile) Pairs(spec *sbv1.SpiralBenchSpec, p sbv1.CellParameters) int32 {
	if k.EchoedPairs != nil {
		return k.EchoedPairs(spec, p)
	}
	return max(p.Pairs, 1)
}

// Dimensions are matrix lists a preset fills.
type Dimensions struct {
	PayloadBytes []int32
	Batches      []int32
	Pairs        []int32
}

// MaxRepeatsPerProcess is the data plane's limit on --repeats (kMaxRepeatsPerProcess): the
// 4 KiB termination message holds a summary line per repeat.
const MaxRepeatsPerProcess = 4

var registry = map[sbv1.Transport]Profile{}

// Register adds a kind. It panics on a profile without the fields every caller relies on, or
// on a second kind for the same transport: both are programming errors found at start-up.
func Register(p Profile) {
	switch {
	case p.Transport == "" || p.DataplaneTransport == "" || p.Backend == "" || p.Ranks == nil:
		panic(fmt.Sprintf("benchkind: profile %q needs Transport, DataplaneTransport, Backend and Ranks", p.Transport))
	case registry[p.Transport].Transport != "":
		panic(fmt.Sprintf("benchkind: transport %q registered twice", p.Transport))
	}
	registry[p.Transport] = p
}

// Lookup returns the kind of a transport.
func Lookup(t sbv1.Transport) (Profile, bool) {
	p, ok := registry[t]
	return p, ok
}

// For returns the kind of a spec's transport, or an error naming the known ones.
// RepeatsFrom is how many repeats an attempt starting at repeat first runs in its pods: the
// rest of the cell's, up to what the kind runs in one process (RepeatsPerAttempt). The bench
// controller starts attempts this way; hack/suitecmd renders them alike.
func RepeatsFrom(spec *sbv1.SpiralBenchSpec, first int32) int32 {
	perAttempt := int32(1)
	if kind, err := For(spec); err == nil {
		perAttempt = max(kind.RepeatsPerAttempt, 1)
	}
	return max(min(max(spec.Run.Repeats, 1)-first, perAttempt), 1)
}

func For(spec *sbv1.SpiralBenchSpec) (Profile, error) {
	if p, ok := registry[spec.Transport]; ok {
		return p, nil
	}
	return Profile{}, fmt.Errorf("unknown transport %q: use %s", spec.Transport, knownNames())
}

// Transports lists the registered transports, sorted.
func Transports() []sbv1.Transport {
	out := make([]sbv1.Transport, 0, len(registry))
	for t := range registry {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// knownNames reads "GPUCopy, NCCL, RawEthernet, RoCE, TCP or UDP".
func knownNames() string {
	names := make([]string, 0, len(registry))
	for _, t := range Transports() {
		names = append(names, string(t))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Ranks returns the ranks of a spec's kind with their indexes set, or an error for an
// unknown transport.
func Ranks(spec *sbv1.SpiralBenchSpec) ([]Rank, error) {
	p, err := For(spec)
	if err != nil {
		return nil, err
	}
	ranks := p.Ranks(spec)
	for i := range ranks {
		ranks[i].Index = i
	}
	return ranks, nil
}

// Parameters names a cell the way the seed's tables do: payload, the kind's own coordinates,
// target rate and workload.
func Parameters(t sbv1.Transport, p sbv1.CellParameters) string {
	s := Size(p.PayloadBytes)
	if p.PayloadBytes == 0 { // kinds that sweep sizes inside one cell (NCCL, GPUCopy) describe it
		s = ""
	}
	if k, ok := registry[t]; ok && k.Describe != nil {
		s += k.Describe(p)
	}
	if p.TargetRateMbps > 0 {
		s += fmt.Sprintf(" @ %g Gb/s", float64(p.TargetRateMbps)/1000)
	}
	if p.Workload != "" && p.Workload != sbv1.WorkloadNone {
		s += " " + p.Workload.DataplaneName()
		if p.WorkloadBatchBytes > 0 {
			s += "/" + Size(p.WorkloadBatchBytes)
		}
	}
	return s
}

// Size writes a byte count as the seed's tables do (8000 B, 64 KiB, 8 MiB, and 8 MB for
// DAQIRI's 8,000,000-byte RoCE message).
func Size(b int32) string {
	switch {
	case b >= 1_000_000 && b%1_000_000 == 0:
		return fmt.Sprintf("%d MB", b/1_000_000)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0 && b != 8192 && b != 4096:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// MiB is 2^20 bytes.
const MiB = 1 << 20

// oneQueue is one TX and one RX queue, every kind's headline queue cell.
var oneQueue = sbv1.QueueCell{TX: 1, RX: 1}
