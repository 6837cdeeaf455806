package benchkind

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// forwardWorkFlags are the data plane's names of the forward work modes.
var forwardWorkFlags = map[sbv1.ForwardWork]string{
	sbv1.ForwardWorkNone:          "none",
	sbv1.ForwardWorkCPU:           "cpu",
	sbv1.ForwardWorkGPUKernel:     "gpu_kernel",
	sbv1.ForwardWorkGPUPersistent: "gpu_persistent",
	sbv1.ForwardWorkGPUGraphs:     "gpu_graphs",
}

// forwardFlags adds the forward mode (l2fwd-nv) to a RawEthernet cell with rawEthernet.forward:
// the forwarder's ports, pipelines and the cell's work mode (its memory is rawFlags' --memory). The planner made the cell's
// queue cell (pipelines, pipelines), so --tx-queues and --rx-queues already match. The ports
// come from the spec only (a virtual device or a PCI address): a device plugin's one resource
// per side names the sender's and receiver's ports.
func forwardFlags(r *sbv1.RawEthernetSpec, p sbv1.CellParameters) []string {
	f := r.Forward
	if f == nil {
		return nil
	}
	pipelines := f.Pipelines
	if pipelines == 0 {
		pipelines = 1
	}
	work := p.ForwardWork
	if work == "" {
		work = f.Work
	}
	a := []string{
		"--forward-rx-port", forwardPort(f.RXPort),
		"--forward-tx-port", forwardPort(f.TXPort),
		"--forward-pipelines", Itoa(pipelines),
		"--forward-work", ForwardWorkFlag(work),
	}
	if f.WorkNanoseconds > 0 {
		a = append(a, "--forward-work-ns", Itoa(f.WorkNanoseconds))
	}
	return a
}

// cellMemory is the forward cell's memory (matrix.memories, a preset) or rawEthernet.memory.
func cellMemory(r *sbv1.RawEthernetSpec, p sbv1.CellParameters) sbv1.MemoryKind {
	if p.Memory != "" {
		return p.Memory
	}
	return r.Memory
}

// ForwardWorkFlag is the data plane's name of a work mode; None when unset.
func ForwardWorkFlag(w sbv1.ForwardWork) string {
	if f, ok := forwardWorkFlags[w]; ok {
		return f
	}
	return "none"
}

func forwardPort(p sbv1.PortSource) string {
	if p.PCIAddress != "" {
		return p.PCIAddress
	}
	return p.VirtualDevice
}
