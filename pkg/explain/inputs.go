package explain

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/ceiling"
)

// headlineFigure is the figure each kind's ceiling is computed for (pkg/figure's names). A
// GPUCopy cell measures both host directions; H2D is read, the direction DAQIRI reports first.
func headlineFigure(kind string) (figure, unit string) {
	switch kind {
	case ceiling.KindGPUCopy:
		return ceiling.FigureCopyH2D, ceiling.UnitMBps
	case ceiling.KindNCCL:
		return ceiling.FigureNCCLBusbw, ceiling.UnitMBps
	}
	return ceiling.FigureRx, ceiling.UnitMbps
}

// kindOf is the bench's kind as benchkind's DataplaneTransport spells it.
func kindOf(sb *sbv1.SpiralBench) string {
	if p, ok := benchkind.Lookup(sb.Spec.Transport); ok {
		return p.DataplaneTransport
	}
	return strings.ToLower(string(sb.Spec.Transport))
}

// modelled are the figures each kind has a ceiling model for, the headline first.
var modelled = map[string][]string{
	ceiling.KindGPUCopy: {ceiling.FigureCopyH2D, ceiling.FigureCopyD2H, ceiling.FigureCopyD2D},
	ceiling.KindNCCL:    {ceiling.FigureNCCLBusbw},
}

// HasModel says whether some kind has a ceiling model for the figure.
func HasModel(fig string) bool {
	if fig == ceiling.FigureRx {
		return true
	}
	for _, figs := range modelled {
		for _, f := range figs {
			if f == fig {
				return true
			}
		}
	}
	return false
}

// Modelled says whether the bench's kind has a ceiling model for the figure.
func Modelled(sb *sbv1.SpiralBench, fig string) bool {
	figs, ok := modelled[kindOf(sb)]
	if !ok {
		figs = []string{ceiling.FigureRx}
	}
	for _, f := range figs {
		if f == fig {
			return true
		}
	}
	return false
}

// ceilingOf is the ceiling of the cell's figure fig ("" for the headline), or an unknown one
// naming the fact the bench does not record or the figure the kind has no model for.
func ceilingOf(sb *sbv1.SpiralBench, c *sbv1.CellResult, fig string) ceiling.Ceiling {
	kind := kindOf(sb)
	head, unit := headlineFigure(kind)
	if fig == "" {
		fig = head
	}
	if !Modelled(sb, fig) {
		return ceiling.Ceiling{Figure: fig, Unknown: fmt.Sprintf("no ceiling model for %s of a %s bench", fig, sb.Spec.Transport)}
	}
	in, why := inputsOf(sb, c, kind)
	if kind == ceiling.KindGPUCopy {
		in.Copy = map[string]string{ceiling.FigureCopyD2H: ceiling.CopyD2H, ceiling.FigureCopyD2D: ceiling.CopyD2D}[fig]
		if in.Copy == "" {
			in.Copy = ceiling.CopyH2D
		}
	}
	if why != "" {
		return ceiling.Ceiling{Figure: fig, Unit: unit, Unknown: why}
	}
	if links := streamNICs(sb, c, kind); len(links) > 1 {
		return acrossLinks(in, links)
	}
	if kind == ceiling.KindGPUCopy {
		return slowestGPU(in, gpusOf(sb.Status.Environment))
	}
	return ceiling.Headline(in)
}

// slowestGPU is a host copy's ceiling over the node's GPUs: the figure is the slowest GPU's
// rate, which is at most any GPU's ceiling, so the lowest of them bounds it. A GPU whose link
// is not recorded is listed as missing.
func slowestGPU(in ceiling.Inputs, gpus []ceiling.GPU) ceiling.Ceiling {
	var low ceiling.Ceiling
	var missing []string
	for _, g := range gpus {
		one := in
		one.GPU = g
		c := ceiling.Headline(one)
		switch {
		case !c.Known():
			missing = append(missing, c.Unknown)
			if low.Figure == "" {
				low = c
			}
		case !low.Known() || c.Value < low.Value:
			low = c
		}
	}
	if low.Known() {
		low.Missing = append(low.Missing, missing...)
	}
	return low
}

// Inputs fills pkg/ceiling's inputs of a cell from what the bench records; the reason is not
// empty when a fact the kind's path needs is not recorded, and the inputs are then partial.
func Inputs(sb *sbv1.SpiralBench, c *sbv1.CellResult) (ceiling.Inputs, string) {
	return inputsOf(sb, c, kindOf(sb))
}

func inputsOf(sb *sbv1.SpiralBench, c *sbv1.CellResult, kind string) (ceiling.Inputs, string) {
	in := ceiling.Inputs{Kind: kind, PayloadBytes: int64(c.Parameters.PayloadBytes)}
	in.Cores, in.GPUSM, in.GPUWork = coresOf(sb, c), gpuShare(c), workOf(c)
	if latencyMode(sb) {
		return in, "latency mode: the headline is a latency, which has no ceiling model"
	}
	env := sb.Status.Environment
	if env == nil {
		return in, "no environment recorded"
	}
	switch kind {
	case ceiling.KindTCP, ceiling.KindUDP, ceiling.KindRaw, ceiling.KindRoCE:
		if port := memoryPort(sb, kind); port != "" {
			in.NIC = ceiling.NIC{Name: port, Virtual: true}
			return in, ""
		}
		nics := streamNICs(sb, c, kind)
		if len(nics) == 0 {
			return in, "no NIC recorded"
		}
		in.NIC = nicOf(nics[0], sb.Spec.Topology.MTU)
		if kind != ceiling.KindRaw && !in.NIC.Virtual && in.NIC.MTU <= 0 { // raw frames do not depend on it
			return in, "MTU of " + nics[0].Interface + " not recorded"
		}
		if kind == ceiling.KindRoCE && sb.Spec.RoCE != nil {
			in.RoCEVerb = string(sb.Spec.RoCE.Verb)
		}
		in.GPUMemory = deviceMemory(sb, c, kind)
		if in.GPUMemory {
			gpus := gpusOf(env)
			if len(gpus) == 0 {
				return in, "the GPU's PCIe link is not recorded"
			}
			in.GPU = gpus[0]
		}
	case ceiling.KindGPUCopy:
		gpus := gpusOf(env)
		if len(gpus) == 0 {
			return in, "no GPU recorded"
		}
		in.Copy, in.GPU = ceiling.CopyH2D, gpus[0]
	case ceiling.KindNCCL:
		in.GPUs = gpusOf(env)
		if want := int(sb.Spec.Topology.Server.GPUs); len(in.GPUs) < want {
			return in, fmt.Sprintf("the environment records %d of the node's %d GPUs", len(in.GPUs), want)
		}
		in.Nodes = 1
		if sb.Spec.Topology.Mode == sbv1.TopologyCrossNode {
			in.Nodes = 2
			for _, n := range env.NICs {
				in.NICs = append(in.NICs, nicOf(n, sb.Spec.Topology.MTU))
			}
		}
	}
	return in, ""
}

// streamNICs are the server's interfaces a stream cell's pairs ran on: pair i on link
// i % topology.links (TCP and UDP), else the first.
func streamNICs(sb *sbv1.SpiralBench, c *sbv1.CellResult, kind string) []sbv1.NICEnvironment {
	env := sb.Status.Environment
	if env == nil || len(env.NICs) == 0 {
		return nil
	}
	links := 1
	if kind == ceiling.KindTCP || kind == ceiling.KindUDP {
		links = int(max(min(sb.Spec.Topology.Links, max(c.Parameters.Pairs, 1)), 1))
	}
	return env.NICs[:min(links, len(env.NICs))]
}

// acrossLinks is the ceiling of a cell whose pairs spread over several links: the figure is
// the sum, so the ceiling is the sum of each link's. One unknown link leaves it unknown.
func acrossLinks(in ceiling.Inputs, links []sbv1.NICEnvironment) ceiling.Ceiling {
	var total ceiling.Ceiling
	var names, models []string
	for i, n := range links {
		one := in
		one.NIC = nicOf(n, 0)
		if one.NIC.MTU <= 0 {
			one.NIC.MTU = in.NIC.MTU
		}
		c := ceiling.Headline(one)
		if !c.Known() {
			c.Unknown = n.Interface + ": " + c.Unknown
			c.Value, c.Limits = 0, nil
			return c
		}
		if i == 0 {
			total = c
		} else {
			total.Value += c.Value
			total.Missing = append(total.Missing, c.Missing...)
			if c.Component != total.Component {
				total.Component = ceiling.Component(string(total.Component) + " + " + string(c.Component))
			}
		}
		names, models = append(names, c.Name), append(models, c.Model)
	}
	total.Name, total.Model, total.Limits = strings.Join(names, " + "), strings.Join(models, "; "), nil
	return total
}

// virtualDrivers have no wire: the CPU copies the bytes from one side to the other.
var virtualDrivers = map[string]bool{"veth": true, "bridge": true, "loopback": true, "dummy": true, "tun": true}

func nicOf(n sbv1.NICEnvironment, specMTU int32) ceiling.NIC {
	mtu := n.MTU
	if mtu <= 0 {
		mtu = specMTU // the spec's path MTU, where the data plane did not read the interface's
	}
	return ceiling.NIC{Name: n.Interface, SpeedMbps: n.SpeedMbps, MTU: mtu,
		Virtual: virtualDrivers[n.Driver] || n.Interface == "lo",
		PCIe:    ceiling.PCIeLink{Generation: int(n.PCIeGeneration), Width: int(n.PCIeWidth), MaxPayloadBytes: int(n.MaxPayloadBytes)}}
}

// gpusOf are the GPUs the server rank saw, all of status.environment's one model; the single
// GPU fields stand in for a data plane that did not list them.
func gpusOf(env *sbv1.Environment) []ceiling.GPU {
	var out []ceiling.GPU
	for i, g := range env.GPUs {
		out = append(out, ceiling.GPU{Index: i, Model: env.GPUModel,
			PCIe:   ceiling.PCIeLink{Generation: int(g.PCIeGeneration), Width: int(g.PCIeWidth), MaxPayloadBytes: int(g.MaxPayloadBytes)},
			NVLink: ceiling.NVLinkPort{Links: int(g.NVLinksActive)}})
	}
	if len(out) == 0 && env.GPUModel != "" {
		out = append(out, ceiling.GPU{Model: env.GPUModel,
			PCIe: ceiling.PCIeLink{Generation: int(env.GPUPCIeGeneration), Width: int(env.GPUPCIeWidth)}})
	}
	return out
}

// deviceMemory says whether a stream cell's buffers were in GPU memory (GPUDirect).
func deviceMemory(sb *sbv1.SpiralBench, c *sbv1.CellResult, kind string) bool {
	switch {
	case c.Parameters.Memory == sbv1.MemoryDevice:
		return true
	case kind == ceiling.KindRaw && sb.Spec.RawEthernet != nil:
		return sb.Spec.RawEthernet.Memory == sbv1.MemoryDevice
	case kind == ceiling.KindRoCE && sb.Spec.RoCE != nil:
		return sb.Spec.RoCE.Memory == sbv1.MemoryDevice
	}
	return false
}

func latencyMode(sb *sbv1.SpiralBench) bool {
	return (sb.Spec.Socket != nil && sb.Spec.Socket.Mode == sbv1.SocketModeLatency) ||
		(sb.Spec.RoCE != nil && sb.Spec.RoCE.Mode == sbv1.RoCEModeLatency)
}

// memoryPort is a raw bench's RX port when it is a DPDK device that moves frames through memory
// (net_ring, net_memif, net_null): no wire, the CPU moves the frames. Ports over a netdev
// (af_packet, af_xdp) may cross a real wire and are judged by that netdev's facts.
func memoryPort(sb *sbv1.SpiralBench, kind string) string {
	r := sb.Spec.RawEthernet
	if kind != ceiling.KindRaw || r == nil || r.RXPort == nil {
		return ""
	}
	dev, _, _ := strings.Cut(r.RXPort.VirtualDevice, ",")
	for _, p := range []string{"net_ring", "net_memif", "net_null"} {
		if strings.HasPrefix(dev, p) {
			return dev
		}
	}
	return ""
}
