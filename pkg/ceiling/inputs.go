package ceiling

import (
	"fmt"
	"strings"
)

// Kind names as pkg/benchkind's DataplaneTransport spells them.
const (
	KindTCP     = "tcp"
	KindUDP     = "udp"
	KindRaw     = "raw"
	KindRoCE    = "roce"
	KindGPUCopy = "gpucopy"
	KindNCCL    = "nccl"
)

// Copy directions of a gpucopy cell: sbv1.CopyDirection's, plus Peer for GPU-to-GPU copies.
const (
	CopyH2D  = "H2D"
	CopyD2H  = "D2H"
	CopyD2D  = "D2D"
	CopyPeer = "Peer"
)

// Inputs are a cell's path and the node's hardware facts, as plain values: the callers fill
// them from the cell's parameters, the spec and status.environment. Zero values mean unknown.
type Inputs struct {
	// Kind is the bench kind as benchkind's DataplaneTransport ("tcp", "raw"...); the CRD's
	// spelling ("TCP", "RawEthernet", "GPUCopy") is accepted too.
	Kind string
	// PayloadBytes of the cell: a datagram, a TCP write, a raw frame's payload, an RDMA message.
	PayloadBytes int64
	// NIC the stream kinds cross (the server side's, the receiver).
	NIC NIC
	// TCPHeaderBytes with options; 0 is 32 (20 + the 12-byte timestamps option).
	TCPHeaderBytes int
	// RoCEVerb "Send", "Write" or "Read" (sbv1.RoCEVerb); "" is Send.
	RoCEVerb string
	// RoCEPathMTU in bytes; 0 derives it from the NIC's MTU (RoCEPathMTU).
	RoCEPathMTU int64
	// GPUMemory: a stream kind's buffers are in GPU memory (GPUDirect).
	GPUMemory bool
	// GPU of a gpucopy cell, or whose memory a stream kind uses.
	GPU GPU
	// Copy is a gpucopy cell's direction: H2D, D2H, D2D or Peer.
	Copy string
	// Peer is the other GPU of a Peer copy; PeerNVLinks the NVLinks between the two (NV<n> of
	// nvidia-smi topo), 0 when they talk over PCIe.
	Peer        GPU
	PeerNVLinks int
	// Nodes of an nccl cell (1, or 2 with CrossNode); GPUs every rank's GPU of one node
	// (each node has the same); NICs the NICs NCCL uses on one node.
	Nodes int
	GPUs  []GPU
	NICs  []NIC
	// Cores are the busy shares of the cores that ran the cell, GPUSM the GPU's SM busy share
	// (0..1, negative unknown), GPUWork what kept the SMs busy ("fft").
	Cores   []CoreBusy
	GPUSM   float64
	GPUWork string
}

// NIC is one network interface's facts.
type NIC struct {
	// Name of the interface ("eth1"), for messages.
	Name string
	// SpeedMbps of the link; 0 unknown.
	SpeedMbps int64
	// MTU of the interface; 0 assumes 1500.
	MTU int32
	// Virtual: veth, loopback, a bridge: no wire, the CPU moves the bytes.
	Virtual bool
	// PCIe link of the NIC function; zero unknown.
	PCIe PCIeLink
}

func (n NIC) wireName() string {
	if n.Name == "" {
		return speedName(n.SpeedMbps)
	}
	return speedName(n.SpeedMbps) + " of " + n.Name
}

func (n NIC) label() string {
	if n.Name == "" {
		return "NIC"
	}
	return "NIC " + n.Name
}

// GPU is one GPU's facts.
type GPU struct {
	// Index is the CUDA device index, for messages.
	Index int
	// Model as nvidia-smi prints it: "NVIDIA H200".
	Model string
	// PCIe link of the GPU; zero when unknown or not on PCIe.
	PCIe PCIeLink
	// NVLink ports of the GPU (all its active links); zero when it has none.
	NVLink NVLinkPort
}

func (g GPU) label() string { return fmt.Sprintf("GPU %d", g.Index) }

// nvlink is the GPU's NVLink port with the generation taken from its model where not given.
func (g GPU) nvlink(links int) NVLinkPort {
	p := g.NVLink
	p.Links = links
	if p.Generation == 0 {
		if s, ok := SpecOf(g.Model); ok {
			p.Generation = s.NVLinkGeneration
		}
	}
	return p
}

// kindOf maps either spelling of a kind to benchkind's DataplaneTransport.
func kindOf(k string) string {
	switch strings.ToLower(k) {
	case "rawethernet":
		return KindRaw
	default:
		return strings.ToLower(k)
	}
}
