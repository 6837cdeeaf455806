package ceiling

import "fmt"

// Bytes of an Ethernet frame and its protocol headers (untagged frames, IPv4 without options).
const (
	// EthernetHeaderBytes: destination 6 + source 6 + EtherType 2 (IEEE 802.3-2022 clause 3.1.1).
	EthernetHeaderBytes = 14
	// EthernetFCSBytes: the frame check sequence, a CRC-32 (IEEE 802.3 clause 3.2.9).
	EthernetFCSBytes = 4
	// PreambleSFDBytes: 7 preamble bytes + the start frame delimiter (IEEE 802.3 clause 3.2.1-3.2.2).
	PreambleSFDBytes = 8
	// InterFrameGapBytes: the minimum gap of 96 bit times (IEEE 802.3 clause 4.4.2).
	InterFrameGapBytes = 12
	// MinFrameBytes: the shortest frame, header to FCS (IEEE 802.3 clause 4.4.2, minFrameSize
	// 512 bits); shorter frames are padded.
	MinFrameBytes = 64
	// IPv4HeaderBytes without options (RFC 791 section 3.1).
	IPv4HeaderBytes = 20
	// UDPHeaderBytes (RFC 768).
	UDPHeaderBytes = 8
	// TCPHeaderBytes without options (RFC 9293 section 3.1).
	TCPHeaderBytes = 20
	// TCPTimestampsBytes: the timestamps option, 10 bytes padded to 12 with two NOPs (RFC 7323
	// section 3), which Linux sends on every segment by default (net.ipv4.tcp_timestamps=1).
	TCPTimestampsBytes = 12
	// RawHeadersBytes: the raw transport's Ethernet 14 + IPv4 20 + UDP 8
	// (dataplane/src/transports/raw/frame.hpp, kHeadersBytes).
	RawHeadersBytes = EthernetHeaderBytes + IPv4HeaderBytes + UDPHeaderBytes
	// DefaultMTU of Ethernet when the interface's is unknown (RFC 894).
	DefaultMTU = 1500
)

// wireOverheadBytes is what each frame costs beyond its header-to-FCS bytes: preamble, SFD
// and the inter-frame gap. An RFC 2544 tester's maximum frame rate is link bits/s over
// (frame + 20) x 8 (RFC 2544 Appendix A.1: 14,880 64-byte frames/s at 10 Mb/s, 10e6 / (84 x 8);
// the same formula gives 14,880,952 at 10 Gb/s).
const wireOverheadBytes = PreambleSFDBytes + InterFrameGapBytes

// frameBytes is the frame of an L3 packet, header to FCS, padded to the minimum.
func frameBytes(l3Bytes int64) int64 {
	return max(EthernetHeaderBytes+l3Bytes+EthernetFCSBytes, MinFrameBytes)
}

// wireBytes is the time an L3 packet holds the wire, in bytes: frame + preamble, SFD and gap.
func wireBytes(l3Bytes int64) int64 { return frameBytes(l3Bytes) + wireOverheadBytes }

// packetGroup is n identical packets of a message: the L3 bytes each puts on the wire and the
// bytes each moves across the NIC's PCIe link (the frame without FCS, or an RDMA packet's data).
type packetGroup struct {
	n, l3, dma int64
}

// A train is how one message (a datagram, a raw frame, a TCP segment, an RDMA message) goes
// on the wire: its packets, and the bytes of it the figure counts.
type train struct {
	counted int64
	groups  []packetGroup
	// model describes the train for a Limit: "8000 B UDP payloads: 8066 B on the wire".
	model string
}

func (t train) packets() (n int64) {
	for _, g := range t.groups {
		n += g.n
	}
	return n
}

func (t train) wireBytes() (b int64) {
	for _, g := range t.groups {
		b += g.n * wireBytes(g.l3)
	}
	return b
}

// MaxPacketsPerSecond is the most packets of l3Bytes (IP header onward) a link of speedMbps
// carries per second: the link's bits over each packet's wire bits.
func MaxPacketsPerSecond(speedMbps int64, l3Bytes int64) float64 {
	return float64(speedMbps) * 1e6 / float64(wireBytes(l3Bytes)*8)
}

// MaxUDPPayloadMbps is the most UDP payload a link of speedMbps carries, in Mb/s, with
// datagrams of payloadBytes and the interface's mtu (IP fragments beyond it).
func MaxUDPPayloadMbps(speedMbps int64, payloadBytes int64, mtu int32) float64 {
	return wireLimitMbps(speedMbps, udpTrain(payloadBytes, mtu))
}

// MaxTCPPayloadMbps is the most TCP payload a link of speedMbps carries, in Mb/s: full-sized
// segments of mtu minus the IPv4 and TCP headers (tcpHeaderBytes, options included).
func MaxTCPPayloadMbps(speedMbps int64, mtu int32, tcpHeaderBytes int) float64 {
	return wireLimitMbps(speedMbps, tcpTrain(mtu, tcpHeaderBytes))
}

// wireLimitMbps is the figure's Mb/s when the wire is full of a train's messages.
func wireLimitMbps(speedMbps int64, t train) float64 {
	messagesPerSecond := float64(speedMbps) * 1e6 / float64(t.wireBytes()*8)
	return messagesPerSecond * float64(t.counted) * 8 / 1e6
}

func mtuOrDefault(mtu int32) int64 {
	if mtu <= 0 {
		return DefaultMTU
	}
	return int64(mtu)
}

// udpTrain is a datagram of payload bytes: one packet when it fits the MTU, else IPv4
// fragments carrying (MTU - 20) rounded down to 8 bytes of the datagram each (RFC 791: fragment
// offsets count 8-byte units), the UDP header in the first.
func udpTrain(payload int64, mtu int32) train {
	m := mtuOrDefault(mtu)
	datagram := UDPHeaderBytes + payload
	t := train{counted: payload}
	if IPv4HeaderBytes+datagram <= m {
		l3 := IPv4HeaderBytes + datagram
		t.groups = []packetGroup{{1, l3, EthernetHeaderBytes + l3}}
		t.model = fmt.Sprintf("%d B UDP payloads: %d B on the wire", payload, wireBytes(l3))
		return t
	}
	perFragment := (m - IPv4HeaderBytes) / 8 * 8
	full := datagram / perFragment
	last := datagram - full*perFragment
	t.groups = []packetGroup{{full, IPv4HeaderBytes + perFragment, EthernetHeaderBytes + IPv4HeaderBytes + perFragment}}
	if last > 0 {
		t.groups = append(t.groups, packetGroup{1, IPv4HeaderBytes + last, EthernetHeaderBytes + IPv4HeaderBytes + last})
	}
	t.model = fmt.Sprintf("%d B UDP payloads in %d IPv4 fragments of MTU %d: %d B on the wire", payload, t.packets(), m, t.wireBytes())
	return t
}

// tcpTrain is one full segment: TCP is a byte stream, and the stack (Nagle, GSO/TSO, a full
// socket buffer) packs writes of any size into MSS-sized segments, so full segments are the
// upper bound whatever the cell's write size.
func tcpTrain(mtu int32, tcpHeaderBytes int) train {
	m := mtuOrDefault(mtu)
	if tcpHeaderBytes <= 0 {
		tcpHeaderBytes = TCPHeaderBytes + TCPTimestampsBytes
	}
	mss := m - IPv4HeaderBytes - int64(tcpHeaderBytes)
	return train{counted: mss, groups: []packetGroup{{1, m, EthernetHeaderBytes + m}},
		model: fmt.Sprintf("TCP segments of MTU %d (MSS %d B, %d B TCP header): %d B on the wire", m, mss, tcpHeaderBytes, wireBytes(m))}
}

// rawTrain is one raw frame; the raw transport counts the frame's bytes without FCS (payload
// + 42), as its summary does (dataplane/src/transports/raw/raw_result.cpp: rx_bytes =
// rx_packets x frame_bytes(payload)).
func rawTrain(payload int64) train {
	l3 := IPv4HeaderBytes + UDPHeaderBytes + payload
	return train{counted: RawHeadersBytes + payload, groups: []packetGroup{{1, l3, EthernetHeaderBytes + l3}},
		model: fmt.Sprintf("%d B raw frames (%d B payload + %d B headers): %d B on the wire", RawHeadersBytes+payload, payload, RawHeadersBytes, wireBytes(l3))}
}

// ethernetLimit is the wire's ceiling on a figure in Mb/s.
func ethernetLimit(nic NIC, t train) Limit {
	return Limit{Component: Ethernet, Name: nic.wireName(), Value: wireLimitMbps(nic.SpeedMbps, t),
		Model: fmt.Sprintf("%s, %s", speedName(nic.SpeedMbps), t.model)}
}

func speedName(speedMbps int64) string {
	return fmt.Sprintf("%g Gb/s Ethernet", float64(speedMbps)/1000)
}
