package ceiling

import "testing"

// 100 GbE, 64 B UDP payloads (IEEE 802.3 framing, RFC 768/791 headers):
// L3 = IPv4 20 + UDP 8 + 64 = 92 B; frame = Ethernet 14 + 92 + FCS 4 = 110 B;
// wire = 110 + preamble/SFD 8 + gap 12 = 130 B = 1040 bits.
// pps = 100e9 / 1040 = 96,153,846.15; payload = 96,153,846.15 x 64 x 8 = 49,230.77 Mb/s.
func TestUDP64BytesAt100G(t *testing.T) {
	near(t, "pps", MaxPacketsPerSecond(100_000, IPv4HeaderBytes+UDPHeaderBytes+64), 96_153_846.153846)
	near(t, "Mb/s", MaxUDPPayloadMbps(100_000, 64, 1500), 49_230.769231)
}

// 100 GbE, 8000 B UDP payloads at MTU 9000: L3 = 8028 B, wire = 8028 + 14 + 4 + 20 = 8066 B.
// pps = 100e9 / (8066 x 8) = 1,549,714.85; payload = 100,000 x 8000 / 8066 = 99,181.75 Mb/s.
func TestUDP8000BytesAt100G(t *testing.T) {
	near(t, "pps", MaxPacketsPerSecond(100_000, 8028), 1_549_714.852467)
	near(t, "Mb/s", MaxUDPPayloadMbps(100_000, 8000, 9000), 99_181.750558)
	if m := udpTrain(8000, 9000).model; m != "8000 B UDP payloads: 8066 B on the wire" {
		t.Errorf("model %q", m)
	}
}

// 8000 B UDP payloads at MTU 1500 fragment (RFC 791): datagram 8008 B; each fragment carries
// floor((1500 - 20) / 8) x 8 = 1480 B: 5 full (7400 B) and one of 608 B.
// wire = 5 x (1480 + 20 + 38) + (608 + 20 + 38) = 7690 + 666 = 8356 B.
// payload = 100,000 x 8000 / 8356 = 95,739.59 Mb/s.
func TestUDPFragmentsAtMTU1500(t *testing.T) {
	tr := udpTrain(8000, 1500)
	if tr.packets() != 6 || tr.wireBytes() != 8356 {
		t.Fatalf("packets %d wire %d, want 6 and 8356", tr.packets(), tr.wireBytes())
	}
	near(t, "Mb/s", MaxUDPPayloadMbps(100_000, 8000, 1500), 95_739.588320)
}

// The shortest frame is padded to 64 B (IEEE 802.3 minFrameSize): 10 B UDP payload, L3 38 B,
// frame 56 B -> 64, wire 84 B. At 10 GbE: 10e9 / (84 x 8) = 14,880,952.38 frames/s, RFC
// 2544 Appendix A.1's 14,880 frames/s at 10 Mb/s scaled by 1000.
func TestMinimumFrameIsPadded(t *testing.T) {
	near(t, "pps", MaxPacketsPerSecond(10_000, IPv4HeaderBytes+UDPHeaderBytes+10), 14_880_952.380952)
}

// TCP at MTU 1500 with timestamps: MSS = 1500 - 20 - 32 = 1448 B, wire 1500 + 38 = 1538 B.
// 100 GbE: 100,000 x 1448 / 1538 = 94,148.24 Mb/s. Without options: MSS 1460, 94,928.48.
// MTU 9000 with timestamps: MSS 8948, wire 9038: 99,004.20.
func TestTCPFullSegments(t *testing.T) {
	near(t, "1500 timestamps", MaxTCPPayloadMbps(100_000, 1500, 0), 94_148.244473)
	near(t, "1500 no options", MaxTCPPayloadMbps(100_000, 1500, TCPHeaderBytes), 94_928.478544)
	near(t, "9000 timestamps", MaxTCPPayloadMbps(100_000, 9000, 0), 99_004.204470)
}

// Raw frames count payload + 42 (the data plane's frame_bytes). 64 B payload: counted 106 B,
// wire 130 B: 100,000 x 106 / 130 = 81,538.46 Mb/s. 8000 B: counted 8042, wire 8066:
// 100,000 x 8042 / 8066 = 99,702.45.
func TestRawFrames(t *testing.T) {
	near(t, "64", wireLimitMbps(100_000, rawTrain(64)), 81_538.461538)
	near(t, "8000", wireLimitMbps(100_000, rawTrain(8000)), 99_702.454748)
}

// WireRate per kind at 100 GbE: UDP 64 B is 96,153,846.15 pps and 49,230.77 Mb/s (above);
// UDP 8000 B at MTU 1500 is 6 fragments per datagram: 100e9 / (8356 x 8) x 6 = 8,975,586.40 pps.
func TestWireRate(t *testing.T) {
	pps, mbps, ok := WireRate(Inputs{Kind: KindUDP, PayloadBytes: 64, NIC: NIC{SpeedMbps: 100_000}})
	if !ok {
		t.Fatal("udp: no rate")
	}
	near(t, "pps", pps, 96_153_846.153846)
	near(t, "Mb/s", mbps, 49_230.769231)
	pps, _, _ = WireRate(Inputs{Kind: KindUDP, PayloadBytes: 8000, NIC: NIC{SpeedMbps: 100_000, MTU: 1500}})
	near(t, "fragments pps", pps, 1e11/(8356*8)*6)
	if _, _, ok := WireRate(Inputs{Kind: KindGPUCopy, NIC: NIC{SpeedMbps: 100_000}}); ok {
		t.Error("gpucopy has no wire")
	}
}
