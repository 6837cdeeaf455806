package ceiling

// GPUSpec is what a GPU model's public datasheet says about its memory and NVLink.
type GPUSpec struct {
	// Memory is the kind: "HBM3", "HBM3e", "LPDDR5X".
	Memory string
	// PeakGBps is the memory's peak bandwidth in GB/s (10^9 B/s), as the vendor states it.
	PeakGBps float64
	// NVLinkGeneration of the model; 0 without NVLink to other GPUs.
	NVLinkGeneration int
	// Unified: the GPU shares the CPU's memory (no PCIe between them), so host copies move
	// through the same memory.
	Unified bool
	// Source is the datasheet's public address.
	Source string
}

// gpuSpecs by model name as nvidia-smi --query-gpu=name prints it (NVML's device name).
var gpuSpecs = map[string]GPUSpec{
	// H100 SXM5 3.35 TB/s, H100 NVL 3.9 TB/s; the PCIe card (80 GB HBM2e) 2 TB/s.
	"NVIDIA H100 80GB HBM3": {Memory: "HBM3", PeakGBps: 3350, NVLinkGeneration: 4, Source: "https://www.nvidia.com/en-us/data-center/h100/"},
	"NVIDIA H100 NVL":       {Memory: "HBM3", PeakGBps: 3900, NVLinkGeneration: 4, Source: "https://www.nvidia.com/en-us/data-center/h100/"},
	"NVIDIA H100 PCIe":      {Memory: "HBM2e", PeakGBps: 2000, NVLinkGeneration: 4, Source: "https://www.nvidia.com/en-us/data-center/h100/"},
	// H200 SXM and H200 NVL: 141 GB HBM3e at 4.8 TB/s.
	"NVIDIA H200":     {Memory: "HBM3e", PeakGBps: 4800, NVLinkGeneration: 4, Source: "https://www.nvidia.com/en-us/data-center/h200/"},
	"NVIDIA H200 NVL": {Memory: "HBM3e", PeakGBps: 4800, NVLinkGeneration: 4, Source: "https://www.nvidia.com/en-us/data-center/h200/"},
	// A100: 80 GB SXM 2,039 GB/s, 80 GB PCIe 1,935 GB/s, 40 GB 1,555 GB/s.
	"NVIDIA A100-SXM4-80GB": {Memory: "HBM2e", PeakGBps: 2039, NVLinkGeneration: 3, Source: "https://www.nvidia.com/en-us/data-center/a100/"},
	"NVIDIA A100 80GB PCIe": {Memory: "HBM2e", PeakGBps: 1935, NVLinkGeneration: 3, Source: "https://www.nvidia.com/en-us/data-center/a100/"},
	"NVIDIA A100-SXM4-40GB": {Memory: "HBM2", PeakGBps: 1555, NVLinkGeneration: 3, Source: "https://www.nvidia.com/en-us/data-center/a100/"},
	"NVIDIA A100-PCIE-40GB": {Memory: "HBM2", PeakGBps: 1555, NVLinkGeneration: 3, Source: "https://www.nvidia.com/en-us/data-center/a100/"},
	// DGX B200: 64 TB/s of HBM3e over its 8 GPUs, 8 TB/s each.
	"NVIDIA B200": {Memory: "HBM3e", PeakGBps: 8000, NVLinkGeneration: 5, Source: "https://www.nvidia.com/en-us/data-center/dgx-b200/"},
	// GB10 (DGX Spark): 128 GB of unified LPDDR5x at 273 GB/s, shared with the Grace CPU over
	// NVLink-C2C.
	"NVIDIA GB10": {Memory: "LPDDR5X", PeakGBps: 273, Unified: true, Source: "https://www.nvidia.com/en-us/products/workstations/dgx-spark/"},
	// L40S 864 GB/s and L4 300 GB/s of GDDR6, no NVLink.
	"NVIDIA L40S": {Memory: "GDDR6", PeakGBps: 864, Source: "https://www.nvidia.com/en-us/data-center/l40s/"},
	"NVIDIA L4":   {Memory: "GDDR6", PeakGBps: 300, Source: "https://www.nvidia.com/en-us/data-center/l4/"},
}

// SpecOf returns a GPU model's datasheet facts; false for a model the table lacks.
func SpecOf(model string) (GPUSpec, bool) {
	s, ok := gpuSpecs[model]
	return s, ok
}

// memoryCopyLimit is the GPU memory's ceiling on a copy within it in MB/s: each copied byte
// is read once and written once, and the data plane counts it once
// (dataplane/src/transports/gpucopy/copy_spec.hpp: "d2d counts each byte once"), so half the
// peak bandwidth.
func memoryCopyLimit(model string, of string) (Limit, string) {
	s, ok := SpecOf(model)
	if !ok || s.PeakGBps <= 0 {
		return Limit{}, "no memory bandwidth for model " + quoteModel(model)
	}
	return Limit{Component: GPUMemory, Name: s.Memory + " of " + of, Value: s.PeakGBps * 1000 / 2,
		Model: model + " " + s.Memory + " peak " + trimFloat(s.PeakGBps) + " GB/s, read and written: half of it (" + s.Source + ")"}, ""
}

func quoteModel(model string) string {
	if model == "" {
		return "(none reported)"
	}
	return model
}
