package summary

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Env is the environment a data plane captured (cell key "environment", docs/dataplane.md
// "Environment"), as its summary's "env" carries it.
type Env struct {
	DataplaneVersion  string   `json:"dataplane_version"`
	DataplaneRevision string   `json:"dataplane_revision"`
	Kernel            string   `json:"kernel"`
	KernelCmdline     string   `json:"kernel_cmdline"`
	IsolCPUs          string   `json:"isolcpus"`
	CPUGovernor       string   `json:"cpu_governor"`
	CPUModel          string   `json:"cpu_model"`
	CPUsOnline        int64    `json:"cpus_online"`
	CPUsUsable        int64    `json:"cpus_usable"`
	HugepagesTotal    int64    `json:"hugepages_total"`
	HugepageSizeKiB   int64    `json:"hugepage_size_kib"`
	NICs              []EnvNIC `json:"nics"`
	GPU               *EnvGPU  `json:"gpu"`
	GPUNote           string   `json:"gpu_note"`
	// GPUs the process sees, nil when NVML is not available (GPUsNote says why).
	GPUs     []EnvGPUFacts `json:"gpus"`
	GPUsNote string        `json:"gpus_note"`
}

// EnvNIC is one interface of the capture; -1 means not known.
type EnvNIC struct {
	Netdev        string `json:"netdev"`
	Driver        string `json:"driver"`
	DriverVersion string `json:"driver_version"`
	Firmware      string `json:"firmware"`
	PCIAddress    string `json:"pci_address"`
	PCIID         string `json:"pci_id"`
	SpeedMbps     int64  `json:"speed_mbps"`
	MTU           int64  `json:"mtu"`
	RXRing        int64  `json:"rx_ring"`
	TXRing        int64  `json:"tx_ring"`
	PCIeWidth     int64  `json:"pcie_width"`
	PCIeGen       int64  `json:"pcie_gen"`
	NUMANode      int64  `json:"numa_node"`
	// The fastest supported link mode, the link's maximum PCIe and its payload sizes (bytes).
	SpeedMaxMbps int64 `json:"speed_max_mbps"`
	PCIeMaxWidth int64 `json:"pcie_max_width"`
	PCIeMaxGen   int64 `json:"pcie_max_gen"`
	MPS          int64 `json:"pcie_mps"`
	MPSMax       int64 `json:"pcie_mps_max"`
}

// EnvGPU is the GPU as NVML names it.
type EnvGPU struct {
	Name          string `json:"name"`
	DriverVersion string `json:"driver_version"`
	CUDAVersion   string `json:"cuda_version"`
	PCIeWidth     int64  `json:"pcie_width"`
	PCIeGen       int64  `json:"pcie_gen"`
	NUMANode      int64  `json:"numa_node"`
}

// Environment is the first capture among an attempt's summaries, nil when none carries one.
func Environment(parts []Part) *Env {
	for _, p := range parts {
		if p.Summary.Env != nil {
			return p.Summary.Env
		}
	}
	return nil
}

// known is v, or 0 where the data plane wrote -1 (not known) or more than an int32 holds.
func known(v int64) int32 {
	if v < 0 || v > 1<<31-1 {
		return 0
	}
	return int32(v)
}

func numa(v int64) *int32 {
	if v < -1 || v > 1<<15 {
		return nil
	}
	n := int32(v)
	return &n
}

// Fill writes the capture into env: the detail, NIC driver and firmware of the first
// interface, and kernel and GPU where the node's labels left them empty. Image digest and node
// are the controller's (the kubelet and the scheduler know them, not the data plane).
func (e *Env) Fill(env *sbv1.Environment) {
	d := &env.EnvironmentDetail
	d.DataplaneVersion, d.DataplaneRevision = clip(e.DataplaneVersion, 60), clip(e.DataplaneRevision, 60)
	d.KernelCmdline, d.IsolatedCPUs, d.CPUGovernor = clip(e.KernelCmdline, 290), clip(e.IsolCPUs, 250), clip(e.CPUGovernor, 60)
	d.CPUModel, d.CPUs, d.CPUsUsable = clip(e.CPUModel, 120), known(e.CPUsOnline), known(e.CPUsUsable)
	d.HugepagesTotal, d.HugepageSizeKiB = max(e.HugepagesTotal, 0), max(e.HugepageSizeKiB, 0)
	if env.Kernel == "" {
		env.Kernel = e.Kernel
	}
	d.NICs = nil
	for _, n := range e.NICs {
		if len(d.NICs) == 8 {
			break
		}
		d.NICs = append(d.NICs, sbv1.NICEnvironment{Interface: clip(n.Netdev, 60), Driver: clip(n.Driver, 60),
			DriverVersion: clip(n.DriverVersion, 60), Firmware: clip(n.Firmware, 60), PCIAddress: clip(n.PCIAddress, 60),
			PCIID:     clip(n.PCIID, 16),
			SpeedMbps: int64(known(n.SpeedMbps)), MTU: known(n.MTU), RXRing: known(n.RXRing), TXRing: known(n.TXRing),
			PCIeWidth: known(n.PCIeWidth), PCIeGeneration: known(n.PCIeGen), NUMANode: numa(n.NUMANode),
			MaxSpeedMbps: int64(known(n.SpeedMaxMbps)), PCIeMaxWidth: known(n.PCIeMaxWidth), PCIeMaxGeneration: known(n.PCIeMaxGen),
			MaxPayloadBytes: known(n.MPS), MaxPayloadSupportedBytes: known(n.MPSMax)})
	}
	if len(e.NICs) > 0 {
		n := e.NICs[0]
		env.NICDriver = clip(n.Driver+" "+n.DriverVersion, 120)
		if n.DriverVersion == "" {
			env.NICDriver = n.Driver
		}
		env.NICFirmware = n.Firmware
	}
	d.GPUNote = clip(e.GPUNote, 250)
	e.fillGPUs(d)
	if g := e.GPU; g != nil {
		if env.GPUModel == "" {
			env.GPUModel = g.Name
		}
		if env.GPUDriver == "" {
			env.GPUDriver = g.DriverVersion
		}
		d.CUDAVersion = clip(g.CUDAVersion, 30)
		d.GPUPCIeWidth, d.GPUPCIeGeneration, d.GPUNUMANode = known(g.PCIeWidth), known(g.PCIeGen), numa(g.NUMANode)
	}
}
