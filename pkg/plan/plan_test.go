package plan

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

type params = sbv1.CellParameters

const none = sbv1.WorkloadNone

func q(tx, rx int32) sbv1.QueueCell { return sbv1.QueueCell{TX: tx, RX: rx} }

func expand(t *testing.T, w *sbtesting.SpiralBenchWrapper) []Cell {
	t.Helper()
	cells, err := Expand(&w.Obj().Spec)
	if err != nil {
		t.Fatalf("Expand: %v", err)
	}
	for i, c := range cells {
		if c.Index != int32(i) {
			t.Fatalf("cell %d has index %d", i, c.Index)
		}
	}
	return cells
}

func headlineOf(t *testing.T, cells []Cell) Cell {
	t.Helper()
	var found []Cell
	for _, c := range cells {
		if c.Headline {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one headline cell, got %d", len(found))
	}
	return found[0]
}

func TestSmokeIsTheHeadlineCellAlone(t *testing.T) {
	for tr, want := range map[sbv1.Transport]params{
		sbv1.TransportRawEthernet: {PayloadBytes: 8000, Batch: 10240, Pairs: 1, Queues: q(1, 1), Workload: none},
		sbv1.TransportRoCE:        {PayloadBytes: 8_000_000, Batch: 1, Pairs: 1, Queues: q(1, 1), Workload: none},
		sbv1.TransportTCP:         {PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: q(1, 1), Workload: none},
		sbv1.TransportUDP:         {PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: q(1, 1), Workload: none},
	} {
		// An empty preset means Smoke, as the CRD default does.
		cells := expand(t, sbtesting.MakeSpiralBench("x", "ns").Transport(tr))
		if len(cells) != 1 || cells[0].CellParameters != want || !cells[0].Headline {
			t.Errorf("%s smoke = %+v, want the single headline cell %+v", tr, cells, want)
		}
	}
}

// DAQIRI's drop-curve: 1, 5, 10, 25, 50, 75, 100 Gb/s and unpaced, at the headline cell;
// with explicit payloads it becomes the drop-curve matrix (payload x target).
func TestDropCurveAndDropCurveMatrix(t *testing.T) {
	cells := expand(t, sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportUDP).Preset(sbv1.PresetDropCurve))
	targets := []int32{1000, 5000, 10000, 25000, 50000, 75000, 100000, 0}
	if len(cells) != len(targets) {
		t.Fatalf("want %d cells, got %d", len(targets), len(cells))
	}
	for i, tg := range targets {
		if cells[i].TargetRateMbps != tg || cells[i].PayloadBytes != 8000 || cells[i].Pairs != 4 {
			t.Errorf("cell %d = %+v, want 8000 B x 4 pairs at %d Mb/s", i, cells[i].CellParameters, tg)
		}
	}
	if headlineOf(t, cells).TargetRateMbps != 0 {
		t.Error("the unpaced cell is the headline")
	}

	matrix := expand(t, sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportRawEthernet).
		Preset(sbv1.PresetDropCurve).Payloads(8000, 4096, 1024, 256, 64))
	if len(matrix) != 40 {
		t.Fatalf("drop-curve matrix: want 5 payloads x 8 targets = 40 cells, got %d", len(matrix))
	}
	if matrix[8].PayloadBytes != 4096 || matrix[8].TargetRateMbps != 1000 {
		t.Errorf("target rate must vary fastest: cell 8 = %+v", matrix[8].CellParameters)
	}
}

func TestExplicitListsOverrideThePresetPerDimension(t *testing.T) {
	cells := expand(t, sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportTCP).Preset(sbv1.PresetSweep).Pairs(8))
	if len(cells) != 3 {
		t.Fatalf("want the 3 preset payloads x 1 given pair count, got %d cells", len(cells))
	}
	for _, c := range cells {
		if c.Pairs != 8 {
			t.Errorf("cell %+v: want pairs 8", c)
		}
	}
	// Without the headline in the plan, the first cell stands in for it.
	if h := headlineOf(t, cells); h.Index != 0 {
		t.Errorf("headline index %d, want 0", h.Index)
	}
}

func TestMatrixBound(t *testing.T) {
	payloads := make([]int32, 32)
	for i := range payloads {
		payloads[i] = int32(64 + i)
	}
	batches := make([]int32, 16)
	for i := range batches {
		batches[i] = int32(1 + i)
	}
	w := sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportRawEthernet).Payloads(payloads...).Batches(batches...)
	if cells := expand(t, w); len(cells) != MaxCells {
		t.Fatalf("32 x 16 = %d cells, want exactly the bound %d", len(cells), MaxCells)
	}
	w.TargetsMbps(0, 1000)
	if _, err := Expand(&w.Obj().Spec); err == nil {
		t.Fatal("1024 cells must be refused")
	}
}

func TestUnknownTransportIsRefused(t *testing.T) {
	if _, err := Expand(&sbtesting.MakeSpiralBench("x", "ns").Transport("SCTP").Obj().Spec); err == nil {
		t.Fatal("want an error for an unknown transport")
	}
}

// DAQIRI's GPU tables: the workload rows (none/fft/gemm/gemm_fp16) at the headline cell, and the
// workload batch sweep 512 KB..8 MB, as one plan.
func TestWorkloadRowsAndWorkloadBatchSweep(t *testing.T) {
	w := sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportRoCE)
	w.Spec.Matrix.Workloads = []sbv1.WorkloadKind{sbv1.WorkloadNone, sbv1.WorkloadFFT, sbv1.WorkloadGEMM, sbv1.WorkloadGEMMFP16}
	cells := expand(t, w)
	if len(cells) != 4 {
		t.Fatalf("want 4 workload rows, got %d", len(cells))
	}
	for i, k := range w.Spec.Matrix.Workloads {
		if cells[i].Workload != k || cells[i].PayloadBytes != 8_000_000 {
			t.Errorf("cell %d = %+v, want 8 MB with workload %s", i, cells[i].CellParameters, k)
		}
	}
	if headlineOf(t, cells).Index != 0 {
		t.Error("the headline is the first cell with the headline's transport parameters")
	}

	w = sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportRoCE).Workload(sbv1.WorkloadGEMMFP16)
	w.Spec.Matrix.WorkloadBatchBytes = []int32{512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20}
	cells = expand(t, w)
	if len(cells) != 5 {
		t.Fatalf("want 5 workload batches, got %d", len(cells))
	}
	for i, b := range w.Spec.Matrix.WorkloadBatchBytes {
		if cells[i].Workload != sbv1.WorkloadGEMMFP16 || cells[i].WorkloadBatchBytes != b {
			t.Errorf("cell %d = %+v, want gemm_fp16 at %d B", i, cells[i].CellParameters, b)
		}
	}

	// spec.workload alone sets the kind and batch of every cell.
	w = sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportUDP).Workload(sbv1.WorkloadFFT)
	w.Spec.Workload.BatchBytes = 4 << 20
	cells = expand(t, w)
	if len(cells) != 1 || cells[0].Workload != sbv1.WorkloadFFT || cells[0].WorkloadBatchBytes != 4<<20 {
		t.Errorf("spec.workload must apply to the cell: %+v", cells)
	}
}
