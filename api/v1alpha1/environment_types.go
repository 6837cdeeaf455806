package v1alpha1

// EnvironmentDetail is what the data plane captures on the server rank, once per run
// (docs/wire.md "Environment"): the host's kernel command line, isolated cores, CPU
// governor, huge pages, the NICs of its links and the GPU as NVML names it, plus the image
// digest the kubelet pulled and the data plane's own revision.
type EnvironmentDetail struct {
	// imageDigest of the data plane container as the kubelet resolved it (containerStatuses imageID).
	// +kubebuilder:validation:MaxLength=512
	// +optional
	ImageDigest string `json:"imageDigest,omitempty"`

	// dataplaneVersion is spiral-dataplane's version.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	DataplaneVersion string `json:"dataplaneVersion,omitempty"`

	// dataplaneRevision is the source revision spiral-dataplane was built from.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	DataplaneRevision string `json:"dataplaneRevision,omitempty"`

	// kernelCmdline of the node (/proc/cmdline), cut to 256 characters.
	// +kubebuilder:validation:MaxLength=300
	// +optional
	KernelCmdline string `json:"kernelCmdline,omitempty"`

	// isolatedCPUs is the isolcpus= value of the kernel command line.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	IsolatedCPUs string `json:"isolatedCPUs,omitempty"`

	// cpuGovernor is cpu0's frequency governor (performance, ondemand, ...).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	CPUGovernor string `json:"cpuGovernor,omitempty"`

	// cpuModel is the node's CPU as /proc/cpuinfo names it (x86's model name; on Arm the core
	// named from its implementer and part).
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CPUModel string `json:"cpuModel,omitempty"`

	// cpus online on the node (/sys/devices/system/cpu/online).
	// +optional
	CPUs int32 `json:"cpus,omitempty"`

	// cpusUsable by the data plane's container (its cpuset, sched_getaffinity).
	// +optional
	CPUsUsable int32 `json:"cpusUsable,omitempty"`

	// hugepagesTotal is HugePages_Total of /proc/meminfo (pages of the default size).
	// +optional
	HugepagesTotal int64 `json:"hugepagesTotal,omitempty"`

	// hugepageSizeKiB is the default huge page size.
	// +optional
	HugepageSizeKiB int64 `json:"hugepageSizeKiB,omitempty"`

	// cudaVersion is the CUDA version the GPU driver supports (NVML); empty without NVML.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	CUDAVersion string `json:"cudaVersion,omitempty"`

	// gpuPCIeWidth is the GPU's current PCIe link width; 0 when not on PCIe or unknown.
	// +optional
	GPUPCIeWidth int32 `json:"gpuPCIeWidth,omitempty"`

	// gpuPCIeGeneration is the GPU's current PCIe generation; 0 when unknown.
	// +optional
	GPUPCIeGeneration int32 `json:"gpuPCIeGeneration,omitempty"`

	// gpuNUMANode is the GPU's NUMA node; -1 when the platform has none.
	// +optional
	GPUNUMANode *int32 `json:"gpuNUMANode,omitempty"`

	// gpuNote says why no GPU was captured (no NVML in the image, no GPU).
	// +kubebuilder:validation:MaxLength=256
	// +optional
	GPUNote string `json:"gpuNote,omitempty"`

	// gpuCount is how many GPUs the server rank's process sees (NVML enumerates the container's
	// GPUs only); unset when NVML is not available (gpusNote says why).
	// +kubebuilder:validation:Minimum=0
	// +optional
	GPUCount *int32 `json:"gpuCount,omitempty"`

	// gpusNote says why no GPU list was captured ("not available: NVML absent ...").
	// +kubebuilder:validation:MaxLength=256
	// +optional
	GPUsNote string `json:"gpusNote,omitempty"`

	// captureNote says what the capture lost on its way to status: what the data plane cut to
	// fit the relay's 4 KiB message ("kept 4 of 16 GPUs, ..."), or why the relay's message could
	// not be read; empty when it arrived whole.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	CaptureNote string `json:"captureNote,omitempty"`

	// gpus are the GPUs the server rank's process sees, in NVML's order: PCIe link, NVLinks and
	// ECC page retirement or row remapping.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	GPUs []GPUEnvironment `json:"gpus,omitempty"`

	// nics are the interfaces of the server rank's links.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	NICs []NICEnvironment `json:"nics,omitempty"`
}

// NICEnvironment is one interface as ethtool -i, -g and sysfs describe it.
type NICEnvironment struct {
	// interface name inside the pod.
	// +kubebuilder:validation:MaxLength=64
	Interface string `json:"interface"`

	// driver name (ethtool -i driver).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Driver string `json:"driver,omitempty"`

	// driverVersion (ethtool -i version).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	DriverVersion string `json:"driverVersion,omitempty"`

	// firmware version (ethtool -i firmware-version).
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Firmware string `json:"firmware,omitempty"`

	// pciAddress of the NIC function; empty for virtual devices.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	PCIAddress string `json:"pciAddress,omitempty"`

	// pciID is the NIC's PCI vendor:device id (sysfs vendor and device, as lspci -n prints
	// it: 15b3:1021 is a ConnectX-7); empty for virtual devices or where sysfs does not say.
	// +kubebuilder:validation:MaxLength=16
	// +optional
	PCIID string `json:"pciID,omitempty"`

	// speedMbps of the link; 0 when down or unknown.
	// +optional
	SpeedMbps int64 `json:"speedMbps,omitempty"`

	// mtu of the interface.
	// +optional
	MTU int32 `json:"mtu,omitempty"`

	// rxRing and txRing are the current ring sizes (ethtool -g); 0 when not reported.
	// +optional
	RXRing int32 `json:"rxRing,omitempty"`
	// +optional
	TXRing int32 `json:"txRing,omitempty"`

	// pcieWidth and pcieGeneration of the NIC's current link; 0 when unknown.
	// +optional
	PCIeWidth int32 `json:"pcieWidth,omitempty"`
	// +optional
	PCIeGeneration int32 `json:"pcieGeneration,omitempty"`

	// numaNode of the NIC; -1 when the platform has none.
	// +optional
	NUMANode *int32 `json:"numaNode,omitempty"`

	// maxSpeedMbps is the fastest of the port's supported link modes (ethtool's "Supported link
	// modes", ETHTOOL_GLINKSETTINGS); 0 when it lists none, as virtual devices (veth) do.
	// +optional
	MaxSpeedMbps int64 `json:"maxSpeedMbps,omitempty"`

	// pcieMaxWidth and pcieMaxGeneration are what the NIC and its slot allow (sysfs
	// max_link_width, max_link_speed); a current link below them is downtrained. 0 when unknown.
	// +optional
	PCIeMaxWidth int32 `json:"pcieMaxWidth,omitempty"`
	// +optional
	PCIeMaxGeneration int32 `json:"pcieMaxGeneration,omitempty"`

	// maxPayloadBytes is the PCIe Max_Payload_Size in use and maxPayloadSupportedBytes the
	// largest the device supports (config space); 0 when not readable (unprivileged).
	// +optional
	MaxPayloadBytes int32 `json:"maxPayloadBytes,omitempty"`
	// +optional
	MaxPayloadSupportedBytes int32 `json:"maxPayloadSupportedBytes,omitempty"`
}

// GPUEnvironment is one GPU the data plane's process sees, from sysfs and NVML.
type GPUEnvironment struct {
	// pciAddress of the GPU as sysfs names it (0000:1b:00.0).
	// +kubebuilder:validation:MaxLength=64
	PCIAddress string `json:"pciAddress"`

	// pcieWidth and pcieGeneration of the current link; pcieMaxWidth and pcieMaxGeneration what
	// the GPU and its slot allow. 0 when unknown (a GPU not on PCIe, such as GB10's).
	// +optional
	PCIeWidth int32 `json:"pcieWidth,omitempty"`
	// +optional
	PCIeGeneration int32 `json:"pcieGeneration,omitempty"`
	// +optional
	PCIeMaxWidth int32 `json:"pcieMaxWidth,omitempty"`
	// +optional
	PCIeMaxGeneration int32 `json:"pcieMaxGeneration,omitempty"`

	// maxPayloadBytes in use and maxPayloadSupportedBytes, as for a NIC; 0 when not readable.
	// +optional
	MaxPayloadBytes int32 `json:"maxPayloadBytes,omitempty"`
	// +optional
	MaxPayloadSupportedBytes int32 `json:"maxPayloadSupportedBytes,omitempty"`

	// performanceState is NVML's P-state (0 = P0, full power); a GPU in a lower state may run
	// its PCIe link at a lower generation to save power. Unset when NVML does not say.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=15
	// +optional
	PerformanceState *int32 `json:"performanceState,omitempty"`

	// nvlinks the GPU has and nvlinksActive of them; 0 for a GPU without NVLink.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=18
	// +optional
	NVLinks int32 `json:"nvlinks,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=18
	// +optional
	NVLinksActive int32 `json:"nvlinksActive,omitempty"`

	// nvlinkMinMegabytesPerSec is the rate of the slowest active NVLink in MB/s (megabytes,
	// NVML's NVML_FI_DEV_NVLINK_GET_SPEED); 0 when NVML does not give it. The record keeps
	// every link's rate.
	// +optional
	NVLinkMinMegabytesPerSec int64 `json:"nvlinkMinMegabytesPerSec,omitempty"`

	// retiredPages for ECC errors (page retirement, GPUs before Ampere) and whether a retirement
	// waits for a reboot; unset where NVML does not give them.
	// +optional
	RetiredPages *int64 `json:"retiredPages,omitempty"`
	// +optional
	RetiredPagesPending *bool `json:"retiredPagesPending,omitempty"`

	// remappedRows (correctable and uncorrectable, row remapping, Ampere on) and whether a
	// remapping waits for a GPU reset; unset where NVML does not give them.
	// +optional
	RemappedRows *int64 `json:"remappedRows,omitempty"`
	// +optional
	RowRemapPending *bool `json:"rowRemapPending,omitempty"`
}

// EnvironmentKey names one field of status.environment that two runs must share to be
// comparable (baseline.environmentKeys, a fleet's baseline.environmentKeys).
// +kubebuilder:validation:Enum=gpuModel;gpuDriver;cudaVersion;nicDriver;nicFirmware;kernel;kernelCmdline;isolatedCPUs;cpuGovernor;cpu;hugepages;image;imageDigest;dataplaneRevision;nicLink;pcie
type EnvironmentKey string
