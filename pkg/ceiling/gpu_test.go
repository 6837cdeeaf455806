package ceiling

import (
	"strings"
	"testing"
)

// NVLink 4 x18 (H100/H200 SXM): 18 x 25 GB/s = 450 GB/s per direction (900 GB/s both ways,
// nvidia.com/en-us/data-center/nvlink/). NVLink 5 x18: 900. NVLink 3 x12 (A100): 300.
func TestNVLinkRates(t *testing.T) {
	near(t, "nvlink4", NVLinkPort{Generation: 4, Links: 18}.GBps(), 450)
	near(t, "nvlink5", NVLinkPort{Generation: 5, Links: 18}.GBps(), 900)
	near(t, "nvlink3", NVLinkPort{Generation: 3, Links: 12}.GBps(), 300)
	slowest, ok := SlowestNVLink([]NVLinkPort{{Generation: 4, Links: 18}, {Generation: 4, Links: 4}})
	if !ok || slowest.Links != 4 {
		t.Errorf("slowest = %v %v, want the 4-link port", slowest, ok)
	}
	if _, ok := SlowestNVLink([]NVLinkPort{{Generation: 4, Links: 18}, {Links: 2}}); ok {
		t.Error("a port of unknown rate makes the path's rate unknown")
	}
}

// An H200 has 4.8 TB/s of HBM3e (nvidia.com/en-us/data-center/h200/); a device-local copy
// reads and writes each byte, counted once: 4,800,000 / 2 = 2,400,000 MB/s.
func TestH200DeviceLocalCopy(t *testing.T) {
	c := GPUCopy(Inputs{Copy: CopyD2D, GPU: GPU{Model: "NVIDIA H200"}})
	if !c.Known() || c.Component != GPUMemory || c.Figure != FigureCopyD2D {
		t.Fatalf("ceiling %+v", c)
	}
	near(t, "MB/s", c.Value, 2_400_000)
}

// H2D on Gen5 x16 at MPS 256: 57.6141 GB/s = 57,614.07 MB/s (see TestPCIeRates). A GB10
// shares its 273 GB/s LPDDR5x with the CPU: 273,000 / 2 = 136,500 MB/s.
func TestHostCopies(t *testing.T) {
	c := GPUCopy(Inputs{Copy: CopyH2D, GPU: GPU{Model: "NVIDIA H200", PCIe: PCIeLink{Generation: 5, Width: 16}}})
	if c.Figure != FigureCopyH2D || c.Name != "PCIe Gen5 x16 of GPU 0" {
		t.Fatalf("ceiling %+v", c)
	}
	near(t, "H2D", c.Value, 57_614.065934)
	near(t, "GB10 D2H", GPUCopy(Inputs{Copy: CopyD2H, GPU: GPU{Model: "NVIDIA GB10"}}).Value, 136_500)
}

// Peer copies over NV18 between two H200s: NVLink 4 (the model's) x 18 = 450,000 MB/s; without
// NVLink the slower of the two PCIe links (Gen4 x16: 28,807.03 MB/s).
func TestPeerCopies(t *testing.T) {
	h200 := GPU{Model: "NVIDIA H200"}
	c := GPUCopy(Inputs{Copy: CopyPeer, GPU: h200, Peer: GPU{Index: 1, Model: "NVIDIA H200"}, PeerNVLinks: 18})
	near(t, "NV18", c.Value, 450_000)
	if c.Name != "NVLink 4 x18 of GPU 0 to GPU 1" {
		t.Errorf("name %q", c.Name)
	}
	c = GPUCopy(Inputs{Copy: CopyPeer, GPU: GPU{PCIe: PCIeLink{Generation: 5, Width: 16}}, Peer: GPU{Index: 1, PCIe: PCIeLink{Generation: 4, Width: 16}}})
	near(t, "PCIe", c.Value, 28_807.032967)
}

func TestUnknowns(t *testing.T) {
	for name, tc := range map[string]struct {
		c    Ceiling
		want string
	}{
		"memory of an unknown model": {GPUCopy(Inputs{Copy: CopyD2D, GPU: GPU{Model: "NVIDIA X"}}), "no memory bandwidth for model NVIDIA X"},
		"H2D without PCIe facts":     {GPUCopy(Inputs{Copy: CopyH2D, GPU: GPU{Model: "NVIDIA H200"}}), "PCIe link of GPU 0 unknown"},
		"peer NVLink of unknown GPU": {GPUCopy(Inputs{Copy: CopyPeer, PeerNVLinks: 4, GPU: GPU{Model: "NVIDIA X"}}), "no NVLink generation for model NVIDIA X"},
		"stream without facts":       {UDP(Inputs{PayloadBytes: 64}), "link speed of NIC unknown; PCIe link of NIC unknown"},
		"unknown kind":               {Headline(Inputs{Kind: "carrier-pigeon"}), `no ceiling model for kind "carrier-pigeon"`},
		"one NCCL rank":              {NCCL(Inputs{Nodes: 1, GPUs: []GPU{{}}}), "one rank: no link carries the collective"},
	} {
		if tc.c.Known() || !strings.Contains(tc.c.String(), tc.want) {
			t.Errorf("%s: %q, want unknown with %q", name, tc.c.String(), tc.want)
		}
	}
}
