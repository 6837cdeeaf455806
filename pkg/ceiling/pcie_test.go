package ceiling

import "testing"

// Per direction, GT/s x encoding x lanes / 8, then x MPS / (MPS + 24) (4DW header 16 +
// framing, sequence number and LCRC 8):
//   - Gen4 x16: 16 x 128/130 x 16 / 8 = 31.5077 GB/s; x 256/280 = 28.8070 GB/s.
//   - Gen5 x16: 32 x 128/130 x 16 / 8 = 63.0154 GB/s; x 256/280 = 57.6141 GB/s.
//   - Gen3 x16: 15.7538 GB/s. Gen1 x1: 2.5 x 8/10 / 8 = 0.25 GB/s.
//   - Gen6 x16 (flit mode): 64 x 236/256 x 16 / 8 = 118 GB/s; a TLP adds its 16 B header only:
//     x 256/272 = 111.0588 GB/s.
func TestPCIeRates(t *testing.T) {
	near(t, "gen4 raw", PCIeLink{Generation: 4, Width: 16}.RawGBps(), 31.507692)
	near(t, "gen4 mps256", PCIeLink{Generation: 4, Width: 16, MaxPayloadBytes: 256}.PayloadGBps(), 28.807033)
	near(t, "gen5 raw", PCIeLink{Generation: 5, Width: 16}.RawGBps(), 63.015385)
	near(t, "gen5 mps256", PCIeLink{Generation: 5, Width: 16, MaxPayloadBytes: 256}.PayloadGBps(), 57.614066)
	near(t, "gen3 raw", PCIeLink{Generation: 3, Width: 16}.RawGBps(), 15.753846)
	near(t, "gen1 x1", PCIeLink{Generation: 1, Width: 1}.RawGBps(), 0.25)
	near(t, "gen6 raw", PCIeLink{Generation: 6, Width: 16}.RawGBps(), 118)
	near(t, "gen6 mps256", PCIeLink{Generation: 6, Width: 16}.PayloadGBps(), 111.058824)
	if o := (PCIeLink{Generation: 5, Width: 16}).TLPOverheadBytes(); o != 24 {
		t.Errorf("Gen5 TLP overhead %d, want 24", o)
	}
	if r := (PCIeLink{Generation: 0, Width: 16}).RawGBps(); r != 0 {
		t.Errorf("unknown generation: %v, want 0", r)
	}
}

// A NIC on Gen3 x8 at 100 GbE with 8000 B raw payloads: each frame DMAs 8042 B in 32 TLPs
// (31 x 256 + 106), 8042 + 32 x 24 = 8810 B of link; the link is 8 x 128/130 x 8 / 8 =
// 7.876923 GB/s: 894,088.9 frames/s x 8042 B x 8 = 57,522.10 Mb/s, under the wire's 99,702.45.
func TestNICPCIeBoundsRaw(t *testing.T) {
	c := Raw(Inputs{PayloadBytes: 8000, NIC: NIC{Name: "eth1", SpeedMbps: 100_000, MTU: 9000, PCIe: PCIeLink{Generation: 3, Width: 8}}})
	if c.Component != PCIe || c.Name != "PCIe Gen3 x8 of NIC eth1" {
		t.Fatalf("bound by %s %q, want PCIe of NIC eth1", c.Component, c.Name)
	}
	near(t, "Mb/s", c.Value, 57_522.102506)
	near(t, "wire", c.Limits[1].Value, 99_702.454748)
}
