package ceiling

import "testing"

// 50,000 MB/s of H2D against Gen5 x16's 57,614.07: 0.87 of the ceiling, PCIe bounds it.
func TestBoundByTheLowestCeiling(t *testing.T) {
	c := GPUCopy(Inputs{Copy: CopyH2D, GPU: GPU{PCIe: PCIeLink{Generation: 5, Width: 16}}})
	b := Bound(50_000, c)
	near(t, "fraction", b.Fraction, 50_000/57_614.065934)
	if b.Component != PCIe || b.BoundBy != "PCIe Gen5 x16 of GPU 0 at 0.87 of 57.6 GB/s" {
		t.Errorf("bound %+v", b)
	}
}

// Well under the ceiling with the SMs saturated: the SMs bound it; near the ceiling the
// component does even with a saturated resource.
func TestBoundBySaturatedResource(t *testing.T) {
	c := Raw(Inputs{PayloadBytes: 8000, NIC: NIC{SpeedMbps: 100_000}})
	sm, _ := GPUSMBusy(1.0, "fft", 0)
	if b := Bound(40_000, c, sm); b.Component != GPUSMs || b.BoundBy != "GPU SMs 100 % (fft)" {
		t.Errorf("well under: %+v", b)
	}
	if b := Bound(95_000, c, sm); b.Component != Ethernet || b.BoundBy != "100 Gb/s Ethernet at 0.95 of 99.70 Gb/s" {
		t.Errorf("near: %+v", b)
	}
	if b := Bound(40_000, c, Evidence{Component: CPU, Text: "RX core 2 busy 60 %", Share: 0.6}); b.Component != Ethernet {
		t.Errorf("nothing saturated names the ceiling's component: %+v", b)
	}
}

func TestBoundWithUnknownCeiling(t *testing.T) {
	c := GPUCopy(Inputs{Copy: CopyD2D, GPU: GPU{Model: "NVIDIA X"}})
	if b := Bound(1000, c); b.FractionKnown || b.BoundBy != "ceiling unknown: no memory bandwidth for model NVIDIA X" {
		t.Errorf("bound %+v", b)
	}
}

func TestBusiestCoreThreshold(t *testing.T) {
	e, _ := BusiestCore([]CoreBusy{{Core: 3, Role: "RX", Share: 0.96}}, 0)
	if !e.Saturated || e.Text != "RX core 3 busy 96 %" {
		t.Errorf("%+v", e)
	}
	if e, _ := BusiestCore([]CoreBusy{{Core: 3, Share: 0.96}}, 0.97); e.Saturated || e.Text != "core 3 busy 96 %" {
		t.Errorf("%+v", e)
	}
}
