package ceiling

import "testing"

// Linux takes 96 B off the netdev MTU (iboe_get_mtu) and picks the largest IB MTU that fits:
// 1500 - 96 = 1404 -> 1024; 9000 - 96 = 8904 -> 4096; 4200 - 96 = 4104 -> 4096; 4100 -> 2048.
func TestRoCEPathMTU(t *testing.T) {
	for mtu, want := range map[int32]int64{1500: 1024, 9000: 4096, 4200: 4096, 4100: 2048, 0: 1024} {
		if got := RoCEPathMTU(mtu); got != want {
			t.Errorf("RoCEPathMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
}

// Every RoCEv2 packet costs Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 +
// preamble/SFD 8 + gap 12 = 82 B beyond its data and extension headers.
//
// Send of 4096 B at path MTU 4096: one packet of 82 + 4096 = 4178 B:
// 100,000 x 4096 / 4178 = 98,037.34 Mb/s.
//
// Write (with immediate) of 8,000,000 B at 4096: 1954 packets (1953 x 4096 = 7,999,488, last
// 512 B). First 82 + RETH 16 + 4096 = 4194; 1952 middle x 4178 = 8,155,456; last 82 + ImmDt 4
// + 512 = 598. Total 8,160,248 B: 100,000 x 8e6 / 8,160,248 = 98,036.24 Mb/s.
//
// Read of 65,536 B: 16 packets of 4178 B plus AETH 4 on the first and the last: 66,856 B:
// 100,000 x 65,536 / 66,856 = 98,025.61 Mb/s.
func TestRoCEWire(t *testing.T) {
	near(t, "send 4096", MaxRoCEPayloadMbps(100_000, 4096, "Send", 4096), 98_037.338439)
	tr := roceTrain(8_000_000, "Write", 4096)
	if tr.packets() != 1954 || tr.wireBytes() != 8_160_248 {
		t.Fatalf("write: packets %d wire %d, want 1954 and 8160248", tr.packets(), tr.wireBytes())
	}
	near(t, "write 8e6", MaxRoCEPayloadMbps(100_000, 8_000_000, "Write", 4096), 98_036.236154)
	near(t, "read 64Ki", MaxRoCEPayloadMbps(100_000, 65_536, "Read", 4096), 98_025.607275)
}
