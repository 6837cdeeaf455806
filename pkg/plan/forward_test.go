package plan

import (
	"slices"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func forwardBench(preset sbv1.Preset, f sbv1.RawForwardSpec) *sbtesting.SpiralBenchWrapper {
	w := sbtesting.MakeSpiralBench("fwd", "default").Transport(sbv1.TransportRawEthernet).Preset(preset)
	w.Obj().Spec.RawEthernet = &sbv1.RawEthernetSpec{
		TXPort:  &sbv1.PortSource{VirtualDevice: "net_memif0,role=client"},
		RXPort:  &sbv1.PortSource{VirtualDevice: "net_memif3,role=server"},
		Forward: &f,
	}
	w.Obj().Spec.RawEthernet.Forward.RXPort = sbv1.PortSource{VirtualDevice: "net_memif1,role=server"}
	w.Obj().Spec.RawEthernet.Forward.TXPort = sbv1.PortSource{VirtualDevice: "net_memif2,role=client"}
	return w
}

func TestForwardBurstPresetIsL2fwdNvsBurstTable(t *testing.T) {
	cells := expand(t, forwardBench(sbv1.PresetForwardBurst, sbv1.RawForwardSpec{Pipelines: 2}))
	if len(cells) != 12 {
		t.Fatalf("want 4 bursts x 3 GPU works = 12 cells, got %d", len(cells))
	}
	var works []sbv1.ForwardWork
	for _, c := range cells {
		if c.PayloadBytes != 1024 || c.Memory != sbv1.MemoryHostPinned || c.Queues != q(2, 2) {
			t.Fatalf("cell %d: want 1024 B, HostPinned, queues (2,2) = pipelines; got %+v", c.Index, c.CellParameters)
		}
		if !slices.Contains(works, c.ForwardWork) {
			works = append(works, c.ForwardWork)
		}
	}
	want := []sbv1.ForwardWork{sbv1.ForwardWorkGPUKernel, sbv1.ForwardWorkGPUPersistent, sbv1.ForwardWorkGPUGraphs}
	if !slices.Equal(works, want) || cells[0].Batch != 16 || cells[11].Batch != 128 {
		t.Fatalf("works %v, first batch %d, last batch %d", works, cells[0].Batch, cells[11].Batch)
	}
}

func TestForwardPacketSizePresetSweepsMemories(t *testing.T) {
	cells := expand(t, forwardBench(sbv1.PresetForwardPacketSize, sbv1.RawForwardSpec{Work: sbv1.ForwardWorkCPU}))
	if len(cells) != 10 {
		t.Fatalf("want 5 sizes x 2 memories = 10 cells, got %d", len(cells))
	}
	if cells[0].PayloadBytes != 64 || cells[0].Memory != sbv1.MemoryHost || cells[1].Memory != sbv1.MemoryHostPinned ||
		cells[9].PayloadBytes != 1024 || cells[0].ForwardWork != sbv1.ForwardWorkCPU || cells[0].Batch != 64 {
		t.Fatalf("unexpected cells: first %+v, last %+v", cells[0].CellParameters, cells[9].CellParameters)
	}
}

func TestForwardCellFlags(t *testing.T) {
	w := forwardBench(sbv1.PresetForwardBurst, sbv1.RawForwardSpec{Pipelines: 2, WorkNanoseconds: 500})
	cells := expand(t, w)
	kind, err := benchkind.For(&w.Obj().Spec)
	if err != nil {
		t.Fatal(err)
	}
	flags := strings.Join(kind.Flags(&w.Obj().Spec, cells[2].CellParameters, benchkind.Rank{}), " ")
	for _, want := range []string{"--forward-rx-port net_memif1,role=server", "--forward-tx-port net_memif2,role=client",
		"--forward-pipelines 2", "--forward-work gpu_graphs", "--forward-work-ns 500", "--memory host_pinned",
		"--tx-queues 2 --rx-queues 2", "--batch 16"} {
		if !strings.Contains(flags, want) {
			t.Errorf("flags lack %q: %s", want, flags)
		}
	}
	if strings.Count(flags, "--memory") != 1 {
		t.Errorf("--memory given more than once: %s", flags)
	}
}

func TestPlainRawCellsHaveNoForwardFields(t *testing.T) {
	w := sbtesting.MakeSpiralBench("raw", "default").Transport(sbv1.TransportRawEthernet)
	for _, c := range expand(t, w) {
		if c.ForwardWork != "" || c.Memory != "" {
			t.Fatalf("plain raw cell with forward fields: %+v", c.CellParameters)
		}
	}
}
