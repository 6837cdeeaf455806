package ceiling

import (
	"fmt"
	"strings"
)

// Headline is the ceiling of a cell's headline figure, combining the components along the
// path of its kind.
func Headline(in Inputs) Ceiling {
	switch kindOf(in.Kind) {
	case KindTCP:
		return TCP(in)
	case KindUDP:
		return UDP(in)
	case KindRaw:
		return Raw(in)
	case KindRoCE:
		return RoCE(in)
	case KindGPUCopy:
		return GPUCopy(in)
	case KindNCCL:
		return NCCL(in)
	}
	return Ceiling{Unknown: fmt.Sprintf("no ceiling model for kind %q", in.Kind)}
}

// TCP is the ceiling of a tcp cell's RxMbps: the NIC's wire in full segments and its PCIe
// link, or the CPU on a path with no wire.
func TCP(in Inputs) Ceiling { return streamCeiling(in, tcpTrain(in.NIC.MTU, in.TCPHeaderBytes)) }

// UDP is the ceiling of a udp cell's RxMbps: the NIC's wire with the cell's datagrams and its
// PCIe link, or the CPU on a path with no wire.
func UDP(in Inputs) Ceiling { return streamCeiling(in, udpTrain(in.PayloadBytes, in.NIC.MTU)) }

// Raw is the ceiling of a raw cell's RxMbps (frame bytes, as the raw transport counts them):
// the NIC's wire and its PCIe link, and the GPU's PCIe link when frames land in GPU memory.
func Raw(in Inputs) Ceiling { return streamCeiling(in, rawTrain(in.PayloadBytes)) }

// RoCE is the ceiling of a roce cell's RxMbps (RDMA payload): the NIC's wire with the verb's
// packets at the path MTU, its PCIe link, and the GPU's when the buffers are in GPU memory.
func RoCE(in Inputs) Ceiling { return streamCeiling(in, roceTrainOf(in)) }

func roceTrainOf(in Inputs) train {
	pmtu := in.RoCEPathMTU
	if pmtu <= 0 {
		pmtu = RoCEPathMTU(in.NIC.MTU)
	}
	return roceTrain(in.PayloadBytes, in.RoCEVerb, pmtu)
}

// WireRate is the most packets per second a stream kind's messages (tcp, udp, raw, roce) put
// on the NIC's wire, and the figure's Mb/s then; false for another kind or an unknown speed.
func WireRate(in Inputs) (packetsPerSecond, figureMbps float64, ok bool) {
	var t train
	switch kindOf(in.Kind) {
	case KindTCP:
		t = tcpTrain(in.NIC.MTU, in.TCPHeaderBytes)
	case KindUDP:
		t = udpTrain(in.PayloadBytes, in.NIC.MTU)
	case KindRaw:
		t = rawTrain(in.PayloadBytes)
	case KindRoCE:
		t = roceTrainOf(in)
	default:
		return 0, 0, false
	}
	if in.NIC.SpeedMbps <= 0 {
		return 0, 0, false
	}
	messagesPerSecond := float64(in.NIC.SpeedMbps) * 1e6 / float64(t.wireBytes()*8)
	return messagesPerSecond * float64(t.packets()), wireLimitMbps(in.NIC.SpeedMbps, t), true
}

// streamCeiling is the lowest of the wire and the PCIe links a stream crosses.
func streamCeiling(in Inputs, t train) Ceiling {
	if in.NIC.Virtual {
		return unknown(FigureRx, UnitMbps, CPU, "no wire ("+in.NIC.label()+" is veth, loopback or a memory port): the CPU moves the bytes")
	}
	var limits []Limit
	var missing []string
	if in.NIC.SpeedMbps > 0 {
		limits = append(limits, ethernetLimit(in.NIC, t))
	} else {
		missing = append(missing, "link speed of "+in.NIC.label()+" unknown")
	}
	if in.NIC.PCIe.known() {
		limits = append(limits, pcieTrainLimit(in.NIC.PCIe, in.NIC.label(), t))
	} else {
		missing = append(missing, "PCIe link of "+in.NIC.label()+" unknown")
	}
	if in.GPUMemory {
		if in.GPU.PCIe.known() {
			limits = append(limits, pcieTrainLimit(in.GPU.PCIe, in.GPU.label(), t))
		} else {
			missing = append(missing, "PCIe link of "+in.GPU.label()+" unknown")
		}
	}
	return lowest(FigureRx, UnitMbps, limits, missing, "")
}

// GPUCopy is the ceiling of a gpucopy cell's figure of in.Copy: host copies by the GPU's PCIe
// link (or its memory when the GPU shares the host's), device-local copies by its memory, peer
// copies by the NVLinks between the two GPUs or else both GPUs' PCIe links.
func GPUCopy(in Inputs) Ceiling {
	g := in.GPU
	switch strings.ToUpper(in.Copy) {
	case CopyH2D, CopyD2H:
		figure := FigureCopyH2D
		if strings.ToUpper(in.Copy) == CopyD2H {
			figure = FigureCopyD2H
		}
		if s, ok := SpecOf(g.Model); ok && s.Unified {
			l, why := memoryCopyLimit(g.Model, g.label())
			return lowest(figure, UnitMBps, []Limit{l}, nil, why)
		}
		if !g.PCIe.known() {
			return lowest(figure, UnitMBps, nil, nil, "PCIe link of "+g.label()+" unknown")
		}
		return lowest(figure, UnitMBps, []Limit{pcieCopyLimit(g.PCIe, g.label())}, nil, "")
	case CopyD2D:
		l, why := memoryCopyLimit(g.Model, g.label())
		return lowest(FigureCopyD2D, UnitMBps, []Limit{l}, nil, why)
	case strings.ToUpper(CopyPeer):
		return peerCopy(in)
	}
	return Ceiling{Unit: UnitMBps, Unknown: fmt.Sprintf("no ceiling model for copy direction %q", in.Copy)}
}

func peerCopy(in Inputs) Ceiling {
	pair := fmt.Sprintf("%s to %s", in.GPU.label(), in.Peer.label())
	if in.PeerNVLinks > 0 {
		p := in.GPU.nvlink(in.PeerNVLinks)
		if p.GBps() <= 0 {
			return lowest(FigureCopyPeer, UnitMBps, nil, nil, "no NVLink generation for model "+quoteModel(in.GPU.Model))
		}
		return lowest(FigureCopyPeer, UnitMBps, []Limit{nvlinkLimit(p, pair)}, nil, "")
	}
	var limits []Limit
	var missing []string
	for _, g := range []GPU{in.GPU, in.Peer} {
		if g.PCIe.known() {
			limits = append(limits, pcieCopyLimit(g.PCIe, g.label()))
		} else {
			missing = append(missing, "PCIe link of "+g.label()+" unknown")
		}
	}
	return lowest(FigureCopyPeer, UnitMBps, limits, missing, "")
}

// ncclMessageBytes is the RDMA WRITE NCCL's IB transport posts per step: NCCL_BUFFSIZE 4 MiB
// over NCCL_STEPS 8 (NCCL's defaults, src/include/device.h and the NCCL environment
// variables documentation). At this size the per-message headers are amortised.
const ncclMessageBytes = 512 << 10

// NCCL is the ceiling of an nccl cell's NCCLBusbwMBps. nccl-tests defines bus bandwidth so that
// it compares with the hardware's per-rank link rate (nccl-tests doc/PERFORMANCE.md): a ring
// on one node is bounded by the slowest GPU's NVLinks (or PCIe link without them); across
// nodes every ring also crosses the nodes' NICs, which carry at most their payload rate
// together.
func NCCL(in Inputs) Ceiling {
	var limits []Limit
	var missing []string
	if len(in.GPUs) > 1 {
		for _, g := range in.GPUs {
			switch {
			case g.NVLink.Links > 0 && g.nvlink(g.NVLink.Links).GBps() > 0:
				limits = append(limits, nvlinkLimit(g.nvlink(g.NVLink.Links), g.label()))
			case g.NVLink.Links > 0:
				missing = append(missing, "no NVLink generation for model "+quoteModel(g.Model))
			case g.PCIe.known():
				limits = append(limits, pcieCopyLimit(g.PCIe, g.label()))
			default:
				missing = append(missing, "neither NVLink nor PCIe link of "+g.label()+" known")
			}
		}
	}
	if in.Nodes > 1 {
		if l, why := ncclNICs(in.NICs); why == "" {
			limits = append(limits, l)
		} else {
			missing = append(missing, why)
		}
	}
	why := ""
	if len(in.GPUs) <= 1 && in.Nodes <= 1 {
		why = "one rank: no link carries the collective"
	}
	return lowest(FigureNCCLBusbw, UnitMBps, limits, missing, why)
}

// ncclNICs is the NICs' payload rate together, in MB/s: each the lower of its wire and its
// PCIe link with NCCL's RDMA WRITEs.
func ncclNICs(nics []NIC) (Limit, string) {
	if len(nics) == 0 {
		return Limit{}, "NICs of the nodes unknown"
	}
	total := Limit{Component: Ethernet}
	var names, models []string
	for _, n := range nics {
		if n.SpeedMbps <= 0 {
			return Limit{}, "link speed of " + n.label() + " unknown"
		}
		t := roceTrain(ncclMessageBytes, "write", RoCEPathMTU(n.MTU))
		l := ethernetLimit(n, t)
		if n.PCIe.known() {
			if p := pcieTrainLimit(n.PCIe, n.label(), t); p.Value < l.Value {
				l = p
			}
		}
		if len(names) == 0 || l.Component == PCIe {
			total.Component = l.Component
		}
		total.Value += l.Value / 8 // Mb/s to MB/s
		names = append(names, l.Name)
		models = append(models, l.Model)
	}
	total.Name = strings.Join(names, " + ")
	total.Model = strings.Join(models, "; ")
	return total, ""
}
