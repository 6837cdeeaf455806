package benchkind

import (
	"strconv"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RawFrameHeaderBytes is what a raw frame carries besides its payload in SpiralBench's counts:
// Ethernet 14 + IPv4 20 + UDP 8 (dataplane/src/transports/raw/frame.hpp), no FCS.
const RawFrameHeaderBytes = 42

// DAQIRIHeaderBytes is DAQIRI's bench_tx header_size (64 in every example config): its raw
// bench counts header_size + payload_size bytes per packet ("RX complete: bytes=").
const DAQIRIHeaderBytes = 64

// Accounting says how a raw repeat's bytes are counted.
type Accounting int

const (
	// FrameBytes is SpiralBench's: the L2 frame bytes the data plane counted, payload + 42 each.
	FrameBytes Accounting = iota
	// DAQIRIBytes restates them as DAQIRI's raw bench counts the same packets: payload + 64 each,
	// so a packet rate reads in Gb/s as DAQIRI's runs.csv would print it.
	DAQIRIBytes
)

// RXBytes is the receiver's bytes of a repeat of a payload, in this accounting.
func (a Accounting) RXBytes(r sbv1.RepeatResult, payload int32) int64 {
	if a == DAQIRIBytes {
		return r.RXPackets * (int64(payload) + DAQIRIHeaderBytes)
	}
	return r.RXBytes
}

// Unknown is what the DAQIRI-shaped files write for a share nothing measured (a core that was
// not pinned, no GPU): Python's float() and pandas both read it as NaN, which averages to NaN
// and matplotlib leaves out, where a 0 would read as a measured idle core.
const Unknown = "nan"

// Gbps is bytes x 8 / seconds / 1e9 with three decimals, as DAQIRI's awk prints it.
func Gbps(bytes int64, ms int64) string {
	if ms <= 0 {
		return "0.000"
	}
	return strconv.FormatFloat(float64(bytes)*8/1e6/float64(ms), 'f', 3, 64)
}
