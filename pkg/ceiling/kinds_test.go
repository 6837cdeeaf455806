package ceiling

import (
	"strings"
	"testing"
)

// A 100 GbE NIC on Gen4 x16 at MTU 9000, UDP 8000 B: the wire's 99,181.75 Mb/s (see
// TestUDP8000BytesAt100G) is below the PCIe link's (8042 B per datagram in 32 TLPs: 8810 B of
// a 31.5077 GB/s link: 230,081 Mb/s).
func TestUDPHeadlineOnAWire(t *testing.T) {
	c := Headline(Inputs{Kind: "UDP", PayloadBytes: 8000, NIC: NIC{Name: "eth1", SpeedMbps: 100_000, MTU: 9000, PCIe: PCIeLink{Generation: 4, Width: 16}}})
	if c.Component != Ethernet || c.Figure != FigureRx || c.Unit != UnitMbps || len(c.Limits) != 2 {
		t.Fatalf("ceiling %+v", c)
	}
	near(t, "Mb/s", c.Value, 99_181.750558)
	near(t, "PCIe", c.Limits[1].Value, 31.507692e9/8810*8000*8/1e6)
	want := "99.18 Gb/s (100 Gb/s Ethernet of eth1: 100 Gb/s Ethernet, 8000 B UDP payloads: 8066 B on the wire)"
	if c.String() != want {
		t.Errorf("String() = %q, want %q", c.String(), want)
	}
}

// On veth the CPU moves the bytes: no numeric ceiling, the busy core bounds it.
func TestTCPOnVethIsTheCPUs(t *testing.T) {
	in := Inputs{Kind: KindTCP, NIC: NIC{Virtual: true}, Cores: []CoreBusy{{Core: 1, Role: "TX", Share: 0.7}, {Core: 3, Role: "RX", Share: 0.99}}}
	c := Headline(in)
	if c.Known() || c.Component != CPU {
		t.Fatalf("ceiling %+v, want unknown, bounded by the CPU", c)
	}
	b := Bound(40_000, c, in.Evidence(0)...)
	if b.FractionKnown || b.Component != CPU || b.BoundBy != "RX core 3 busy 99 %" {
		t.Errorf("bound %+v", b)
	}
	b = Bound(40_000, c, Evidence{Component: CPU, Text: "RX core 3 busy 50 %", Share: 0.5})
	if b.Component != CPU || !strings.Contains(b.BoundBy, "no core saturated") {
		t.Errorf("unsaturated: %+v", b)
	}
}

// RoCE Write of 8,000,000 B into GPU memory over a 400 GbE NIC at MTU 9000 (path MTU 4096):
// wire 400,000 x 8e6 / 8,160,248 = 392,144.94 Mb/s (TestRoCEWire's train); the GPU's Gen4 x16
// link moves 4096 B packets in 16 TLPs: 4096 + 16 x 24 = 4480 B of 31.5077 GB/s, and 512 B in 2:
// 560 B. Per message 1953 x 4480 + 560 = 8,750,000 B: 31.5077e9 / 8.75e6 x 8e6 x 8 / 1e6 =
// 230,456.97 Mb/s: the GPU's PCIe bounds it. The NIC's Gen5 x16 moves the same bytes at
// 63.0154 GB/s: 460,912.53 Mb/s.
func TestRoCEIntoGPUMemory(t *testing.T) {
	c := RoCE(Inputs{PayloadBytes: 8_000_000, RoCEVerb: "Write", GPUMemory: true,
		NIC: NIC{Name: "eth1", SpeedMbps: 400_000, MTU: 9000, PCIe: PCIeLink{Generation: 5, Width: 16}},
		GPU: GPU{Model: "NVIDIA H200", PCIe: PCIeLink{Generation: 4, Width: 16}}})
	if c.Name != "PCIe Gen4 x16 of GPU 0" || len(c.Limits) != 3 {
		t.Fatalf("ceiling %+v", c)
	}
	near(t, "Mb/s", c.Value, 31.507692307692e9/8.75e6*8e6*8/1e6)
	near(t, "wire", c.Limits[1].Value, 392_144.944615)
	near(t, "NIC PCIe", c.Limits[2].Value, 63.015384615385e9/8.75e6*8e6*8/1e6)
}

// NCCL on one node of 8 H200s with NV18 each: the ring's 450 GB/s per direction. Across two
// nodes with one 400 GbE NIC each (MTU 9000, Gen5 x16): NCCL's 524,288 B WRITEs are 128
// packets: first 82 + 16 + 4096 = 4194, 126 x 4178 = 526,428, last 82 + 4 + 4096 = 4182:
// 534,804 B; 400,000 x 524,288 / 534,804 / 8 = 49,016.84 MB/s.
func TestNCCL(t *testing.T) {
	gpus := make([]GPU, 8)
	for i := range gpus {
		gpus[i] = GPU{Index: i, Model: "NVIDIA H200", NVLink: NVLinkPort{Links: 18}}
	}
	c := NCCL(Inputs{Nodes: 1, GPUs: gpus})
	if c.Component != NVLink || c.Figure != FigureNCCLBusbw {
		t.Fatalf("one node: %+v", c)
	}
	near(t, "one node", c.Value, 450_000)
	nic := NIC{Name: "eth1", SpeedMbps: 400_000, MTU: 9000, PCIe: PCIeLink{Generation: 5, Width: 16}}
	c = Headline(Inputs{Kind: "NCCL", Nodes: 2, GPUs: gpus, NICs: []NIC{nic}})
	if c.Component != Ethernet {
		t.Fatalf("two nodes: %+v", c)
	}
	near(t, "two nodes", c.Value, 49_016.836075)
	if c := NCCL(Inputs{Nodes: 2, GPUs: gpus[:1]}); c.Known() || !strings.Contains(c.Unknown, "NICs of the nodes unknown") {
		t.Errorf("no NICs: %+v", c)
	}
}

func TestKindSpellings(t *testing.T) {
	in := Inputs{PayloadBytes: 64, NIC: NIC{SpeedMbps: 100_000}}
	for _, k := range []string{"raw", "RawEthernet"} {
		in.Kind = k
		near(t, k, Headline(in).Value, 81_538.461538)
	}
}
