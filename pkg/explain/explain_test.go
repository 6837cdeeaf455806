package explain_test

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// withNIC gives a fixture bench the NIC facts its environment lacks.
func withNIC(sb *sbv1.SpiralBench, n sbv1.NICEnvironment) *sbv1.SpiralBench {
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{n}
	return sb
}

var cx7 = sbv1.NICEnvironment{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}

func TestExplainTCPOver100GbE(t *testing.T) {
	sb := withNIC(fixture.TCPSweep("tcp", 1, false), cx7)
	e := explain.Cell(sb, &sb.Status.CellResults[0])
	// MTU 9000: MSS 8948 B in 9038 B on the wire, 99.00 Gb/s; the NIC's Gen5 x16 is higher.
	if e.Ceiling == nil || int(*e.Ceiling) != 99004 || e.Component != "Ethernet" || e.Fraction == nil {
		t.Fatalf("explanation %+v", e)
	}
	if want := *e.Measured / *e.Ceiling; *e.Fraction != want || *e.Measured <= 0 {
		t.Errorf("fraction %v, want %v", *e.Fraction, want)
	}
	if got := e.Short(); !strings.HasSuffix(got, " of 99.00 Gb/s (Ethernet)") {
		t.Errorf("short %q", got)
	}
	if !strings.Contains(e.Name, "eth1") || !strings.Contains(e.Model, "9038") {
		t.Errorf("ceiling named %q, model %q", e.Name, e.Model)
	}
}

func TestExplainTCPOverVethNamesTheCore(t *testing.T) {
	sb := withNIC(fixture.TCPSweep("veth", 1, false), sbv1.NICEnvironment{Interface: "eth0", Driver: "veth", SpeedMbps: 10000, MTU: 1500})
	sb.Spec.Topology.Server.Cores = &sbv1.CoreMap{Pollers: []int32{3}}
	c := &sb.Status.CellResults[0]
	c.CPU = &sbv1.CPUBusy{MasterMilliPercent: 2000, TXMilliPercent: 60000, RXMilliPercent: 99000}
	e := explain.Cell(sb, c)
	if e.Ceiling != nil || e.BoundComponent != "CPU" || e.BoundBy != "RX core 3 busy 99 %" {
		t.Fatalf("explanation %+v", e)
	}
	if got := e.Short(); got != "CPU: RX core 3 busy 99 %" {
		t.Errorf("short %q", got)
	}
	c.CPU.RXMilliPercent = 50000 // nothing saturated: the CPU still moves the bytes
	if got := explain.Cell(sb, c).Short(); got != "CPU: no wire, no core saturated" {
		t.Errorf("short %q", got)
	}
}

func TestExplainWithoutEnvironmentIsUnknown(t *testing.T) {
	sb := fixture.TCPSweep("bare", 1, false)
	sb.Status.Environment = nil
	e := explain.Cell(sb, &sb.Status.CellResults[0])
	if e.Ceiling != nil || e.Fraction != nil || e.Unknown != "no environment recorded" || e.Measured == nil {
		t.Fatalf("explanation %+v", e)
	}
	if got := e.Short(); got != "unknown: no environment recorded" {
		t.Errorf("short %q", got)
	}
}

func TestExplainUnrecordedFacts(t *testing.T) {
	sb := fixture.TCPSweep("nolink", 1, false)
	if got := explain.Cell(sb, &sb.Status.CellResults[0]).Short(); got != "unknown: no NIC recorded" {
		t.Errorf("no NICs: %q", got)
	}
	n := cx7
	n.SpeedMbps, n.PCIeGeneration, n.PCIeWidth = 0, 0, 0
	withNIC(sb, n)
	if got := explain.Cell(sb, &sb.Status.CellResults[0]).Short(); got != "unknown: link speed of NIC eth1 unknown" {
		t.Errorf("no speed: %q", got)
	}
	n.MTU = 0
	withNIC(sb, n)
	sb.Spec.Topology.MTU = 0
	if got := explain.Cell(sb, &sb.Status.CellResults[0]).Short(); got != "unknown: MTU of eth1 not recorded" {
		t.Errorf("no MTU: %q", got)
	}
}

func TestExplainSumsTheLinksOfACell(t *testing.T) {
	sb := fixture.TCPSweep("links", 1, false)
	sb.Spec.Topology.Links = 2
	eth2 := cx7
	eth2.Interface = "eth2"
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{cx7, eth2}
	for _, c := range sb.Status.CellResults {
		e := explain.Cell(sb, &c)
		want := 99004
		if c.Parameters.Pairs > 1 {
			want *= 2
		}
		if e.Ceiling == nil || int(*e.Ceiling) != want {
			t.Errorf("cell %d (%d pairs): ceiling %v, want %d", c.Index, c.Parameters.Pairs, e.Ceiling, want)
		}
	}
}

func TestExplainFailedCellIsNotMeasured(t *testing.T) {
	sb := withNIC(fixture.TCPSweep("failed", 1, true), cx7)
	var last explain.Explanation
	for _, e := range explain.Bench(sb) {
		if e.State == sbv1.CellFailed {
			last = e
		}
	}
	if last.State != sbv1.CellFailed || last.Measured != nil || last.Short() != "-" || last.BoundBy != "not measured" {
		t.Errorf("failed cell %+v", last)
	}
}

func TestExplainPacedCellIsBoundByItsPace(t *testing.T) {
	sb := withNIC(fixture.UDPDropCurve("drop"), cx7)
	for _, e := range explain.Bench(sb) {
		c := sb.Status.CellResults[e.Cell]
		if c.Parameters.TargetRateMbps == 1000 && c.Parameters.PayloadBytes == 8000 {
			// 8000 B datagrams at MTU 9000: 8066 B on the wire, 99.18 Gb/s; the sender asked for 1.
			if e.Ceiling == nil || int(*e.Ceiling) != 99181 || e.Short() != "paced: the sender's target 1.00 Gb/s" {
				t.Errorf("paced cell: %q, ceiling %v", e.Short(), e.Ceiling)
			}
		}
		if c.Parameters.TargetRateMbps == 0 && e.BoundComponent == explain.Paced {
			t.Errorf("unpaced cell %d bound by the pace", e.Cell)
		}
	}
}

// A GPUCopy cell's H2D figure is its slowest GPU's; the ceiling is the slowest GPU's PCIe link.
func TestExplainGPUCopyReadsTheGPUsPCIeLinks(t *testing.T) {
	sb := fixture.GPUCopyPeers("copy")
	env := sb.Status.Environment
	env.GPUModel = "NVIDIA H200"
	env.GPUs = []sbv1.GPUEnvironment{{PCIAddress: "0000:1b:00.0", PCIeGeneration: 5, PCIeWidth: 16}, {PCIAddress: "0000:2b:00.0", PCIeGeneration: 4, PCIeWidth: 16}}
	c := &sb.Status.CellResults[0]
	c.RepeatResults = []sbv1.RepeatResult{{State: sbv1.CellValid, Copies: &sbv1.CopyResult{Sizes: []sbv1.CopySize{
		{Device: 0, Direction: "H2D", Bytes: 256 << 20, MegabytesPerSecond: 53000},
		{Device: 1, Direction: "H2D", Bytes: 256 << 20, MegabytesPerSecond: 25000}}}}}
	e := explain.Cell(sb, c)
	// Gen4 x16 at MPS 256: 31.51 GB/s x 256/280 = 28.81 GB/s, the lower of the two links.
	if e.Figure != "CopyH2DMBps" || e.Measured == nil || *e.Measured != 25000 || e.Ceiling == nil || int(*e.Ceiling) != 28807 {
		t.Fatalf("explanation %+v", e)
	}
	if got := e.Short(); got != "0.87 of 28.8 GB/s (PCIe)" {
		t.Errorf("short %q", got)
	}
	env.GPUs = nil
	if got := explain.Cell(sb, c).Short(); got != "unknown: PCIe link of GPU 0 unknown" {
		t.Errorf("without the GPUs' links: %q", got)
	}
}

// An NCCL cell on one node is bounded by its GPUs' NVLinks; the environment must list them all.
func TestExplainNCCLReadsTheNVLinks(t *testing.T) {
	sb := &sbv1.SpiralBench{Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL}}
	sb.Spec.Topology.Server.GPUs = 2
	sb.Status.Environment = &sbv1.Environment{GPUModel: "NVIDIA H200",
		EnvironmentDetail: sbv1.EnvironmentDetail{GPUs: []sbv1.GPUEnvironment{{NVLinksActive: 18}, {NVLinksActive: 18}}}}
	sb.Status.CellResults = []sbv1.CellResult{{State: sbv1.CellValid, Repeats: 1, RepeatResults: []sbv1.RepeatResult{{State: sbv1.CellValid,
		Collective: &sbv1.CollectiveResult{Sizes: []sbv1.CollectiveSize{{Bytes: 1 << 30, BusbwMBps: 360000}}}}}}}
	e := explain.Bench(sb)[0]
	// NVLink 4: 18 links x 25 GB/s per direction.
	if e.Figure != "NCCLBusbwMBps" || e.Ceiling == nil || *e.Ceiling != 450000 || e.Short() != "0.80 of 450.0 GB/s (NVLink)" {
		t.Fatalf("explanation %q %+v", e.Short(), e)
	}
	sb.Spec.Topology.Server.GPUs = 4
	if got := explain.Bench(sb)[0].Short(); got != "unknown: the environment records 2 of the node's 4 GPUs" {
		t.Errorf("with GPUs unlisted: %q", got)
	}
}

// A copy bench's D2H figure has its own ceiling, the same PCIe links; a figure the kind has no
// model for is unknown, saying so.
func TestExplainCellFigureReadsD2HAndRefusesUnmodelledFigures(t *testing.T) {
	sb, c := oneH200Copy(4, sbv1.CopySize{Device: 0, Direction: "H2D", Bytes: 256 << 20, MegabytesPerSecond: 26000},
		sbv1.CopySize{Device: 0, Direction: "D2H", Bytes: 256 << 20, MegabytesPerSecond: 20000})
	e := explain.CellFigure(sb, c, "CopyD2HMBps")
	if e.Figure != "CopyD2HMBps" || e.Measured == nil || *e.Measured != 20000 || e.Ceiling == nil || int(*e.Ceiling) != 28807 {
		t.Fatalf("D2H explanation %+v", e)
	}
	if e := explain.CellFigure(sb, c, "RxMbps"); e.Ceiling != nil || !strings.Contains(e.Unknown, "no ceiling model for RxMbps of a GPUCopy bench") {
		t.Errorf("RxMbps of a copy bench: %+v", e)
	}
}

// A raw bench over net_ring has no wire: the CPU moves the frames, whatever NIC the node has;
// over af_packet the netdev's facts judge it.
func TestExplainRawOverAMemoryPortIsCPUBound(t *testing.T) {
	sb := withNIC(fixture.RawQueueScaling("raw"), cx7)
	sb.Spec.RawEthernet = &sbv1.RawEthernetSpec{RXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}, TXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}}
	e := explain.Cell(sb, &sb.Status.CellResults[0])
	if e.Ceiling != nil || e.Component != "" || !strings.Contains(e.Unknown, "no wire (NIC net_ring0 is veth, loopback or a memory port)") {
		t.Errorf("net_ring: %+v", e)
	}
	sb.Spec.RawEthernet.RXPort.VirtualDevice = "net_af_packet0,iface=eth1"
	if e := explain.Cell(sb, &sb.Status.CellResults[0]); e.Ceiling == nil {
		t.Errorf("af_packet over eth1 is judged by eth1's wire: %+v", e)
	}
}

// A copy within the GPU's memory reads and writes each byte: half the H200's 4.8 TB/s HBM3e.
func TestExplainD2DCopyAgainstTheGPUsMemory(t *testing.T) {
	sb, c := oneH200Copy(5, sbv1.CopySize{Device: 0, Direction: "D2D", Bytes: 256 << 20, MegabytesPerSecond: 1800000})
	e := explain.CellFigure(sb, c, "CopyD2DMBps")
	if e.Ceiling == nil || *e.Ceiling != 2400000 || e.Component != "GPU memory" || e.Fraction == nil || *e.Fraction != 0.75 {
		t.Fatalf("D2D %+v", e)
	}
}

// oneH200Copy is a copy bench on one H200 whose PCIe link trained at gen x16, its first cell
// one Valid repeat of these rows.
func oneH200Copy(gen int32, rows ...sbv1.CopySize) (*sbv1.SpiralBench, *sbv1.CellResult) {
	sb := fixture.GPUCopyPeers("copy")
	sb.Status.Environment.GPUModel = "NVIDIA H200"
	sb.Status.Environment.GPUs = []sbv1.GPUEnvironment{{PCIAddress: "0000:1b:00.0", PCIeGeneration: gen, PCIeWidth: 16}}
	c := &sb.Status.CellResults[0]
	c.RepeatResults = []sbv1.RepeatResult{{State: sbv1.CellValid, Copies: &sbv1.CopyResult{Sizes: rows}}}
	return sb, c
}
