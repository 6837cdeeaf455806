package benchkind

import (
	"fmt"
	"strings"

	"github.com/spiralbench/spiralbench/api/limits"
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RawEthernet sends raw Ethernet frames through DPDK: one in-process pod holds both ports,
// TX on the client side's and RX on the server side's.
func init() {
	Register(Profile{
		LiveFigures:        true,
		Transport:          sbv1.TransportRawEthernet,
		DataplaneTransport: "raw",
		Backend:            "dpdk",
		CountsReceiver:     true,
		Sequenced:          true,
		Ranks:              Loopback,
		Headline:           sbv1.CellParameters{PayloadBytes: 8000, Batch: 10240, Pairs: 1, Queues: oneQueue},
		Sweep:              Dimensions{PayloadBytes: []int32{8000, 4096, 1024, 256, 64}, Batches: []int32{10240, 4096, 1024, 256}},
		Flags:              rawFlags,
		Results:            &rawResults,
		// One 9000-byte frame at most, whatever topology.mtu says (9000 - 20 IPv4 - 8 UDP).
		Admission: Admission{SpecField: "rawEthernet", Bursts: true, QueueCells: true, OneFrame: true,
			MaxPayloadBytes: 8972, RateSearch: true,
			OneNode: "RawEthernet runs in one pod holding both ports: set topology.mode to Loopback"},
		Describe: func(p sbv1.CellParameters) string {
			s := fmt.Sprintf(" batch %d (%d,%d)", p.Batch, p.Queues.TX, p.Queues.RX)
			if p.ForwardWork != "" { // the forward mode: its work mode and the forwarder's memory
				s += fmt.Sprintf(" fwd %s %s", p.ForwardWork, p.Memory)
			}
			return s
		},
	})
}

// rawResults: the forward mode's and the QueueScaling preset's files beside runs.csv.
var rawResults = Results{Files: []File{{ForwardFile, ForwardCSV}, {QueueScalingFile, queueScalingFile}}}

// queueScalingFile is QueueScalingCSV for a QueueScaling bench, nil for any other.
func queueScalingFile(sb *sbv1.SpiralBench) ([]byte, error) {
	if sb.Spec.Matrix.Preset != sbv1.PresetQueueScaling {
		return nil, nil
	}
	return QueueScalingCSV(sb)
}

// rawFlags names the DPDK ports and buffers. A port without an explicit PCI address or vdev
// is taken from the device plugin's PCIDEVICE_<RESOURCE> variable of the side's first device
// (the data plane reads "env:NAME" at start-up: the kubelet sets it inside the container).
func rawFlags(spec *sbv1.SpiralBenchSpec, p sbv1.CellParameters, _ Rank) []string {
	r := spec.RawEthernet
	if r == nil {
		r = &sbv1.RawEthernetSpec{}
	}
	a := []string{"--batch", Itoa(p.Batch), "--tx-queues", Itoa(p.Queues.TX), "--rx-queues", Itoa(p.Queues.RX),
		"--tx-port", port(r.TXPort, spec.Topology.Client),
		"--rx-port", port(r.RXPort, spec.Topology.Server),
		"--memory", MemoryFlag(cellMemory(r, p)),
	}
	if spec.Topology.Server.Hugepages == nil && spec.Topology.Client.Hugepages == nil {
		a = append(a, "--no-huge") // no huge pages are mounted: DPDK uses ordinary memory
	}
	ring, pool := RawBuffers(r, p.Batch)
	a = append(a, "--ring-descriptors", Itoa(ring), "--pool-buffers", Itoa(pool))
	a = append(a, workers(spec.Topology.Client.Cores, "--tx-workers")...)
	a = append(a, workers(spec.Topology.Server.Cores, "--rx-workers")...)
	return append(a, forwardFlags(r, p)...)
}

func port(p *sbv1.PortSource, side sbv1.SideSpec) string {
	switch {
	case p != nil && p.PCIAddress != "":
		return p.PCIAddress
	case p != nil && p.VirtualDevice != "":
		return p.VirtualDevice
	case len(side.Devices) > 0:
		return "env:" + PCIDeviceEnv(side.Devices[0].ResourceName)
	}
	return ""
}

func workers(c *sbv1.CoreMap, flag string) []string {
	if c == nil || len(c.Workers) == 0 {
		return nil
	}
	list := make([]string, len(c.Workers))
	for i, v := range c.Workers {
		list[i] = Itoa(v)
	}
	return []string{flag, strings.Join(list, ",")}
}

// RawBuffers sizes a cell's rings and pools where the spec leaves them at 0. The data plane
// refuses a batch larger than its ring and a pool that cannot keep a ring full while two
// batches are out (ring + 2 x batch), so the preset batches (4096, 10240) need more than its
// fixed defaults: the ring is the default or the batch rounded up to a power of two, whichever
// is larger, and the pool the next 2^n - 1 (rte_mempool's best size) that holds ring + 2 x batch.
func RawBuffers(r *sbv1.RawEthernetSpec, batch int32) (ring, pool int32) {
	d := limits.Get()
	ring = r.RingDescriptors
	if ring == 0 {
		ring = int32(d.RawRingDescriptorsDefault)
		for ring < batch && int64(ring) < d.RawRingDescriptorsMax {
			ring *= 2
		}
	}
	pool = r.PoolBuffers
	if pool == 0 {
		pool = rawPoolDefault
		for int64(pool) < int64(ring)+2*int64(batch) {
			pool = pool*2 + 1
		}
	}
	return ring, pool
}

// rawPoolDefault is the data plane's own default pool (mbufs per queue).
const rawPoolDefault = 8191
