package ceiling

import "fmt"

// NVLinkPort is a GPU's NVLinks towards the rest of a path: how many links and their generation.
type NVLinkPort struct {
	// Generation 1 to 5; 0 takes the GPU model's (GPUSpec.NVLinkGeneration).
	Generation int
	// Links active (nvidia-smi topo's NV<n>, or nvidia-smi nvlink -s).
	Links int
	// PerLinkGBps overrides the generation's per-link rate per direction, in GB/s.
	PerLinkGBps float64
}

// nvlinkPerLinkGBps is each generation's rate per link per direction, in GB/s: NVIDIA's
// per-GPU total (both directions) over its links, over 2
// (https://www.nvidia.com/en-us/data-center/nvlink/, the generations table):
//   - NVLink 1 (P100): 160 GB/s over 4 links: 20.
//   - NVLink 2 (V100): 300 GB/s over 6 links: 25.
//   - NVLink 3 (A100): 600 GB/s over 12 links: 25.
//   - NVLink 4 (H100, H200): 900 GB/s over 18 links: 25; 18 links are 450 GB/s per direction.
//   - NVLink 5 (B200, GB200): 1800 GB/s over 18 links: 50.
var nvlinkPerLinkGBps = map[int]float64{1: 20, 2: 25, 3: 25, 4: 25, 5: 50}

// GBps is the port's rate per direction in GB/s; 0 when unknown.
func (p NVLinkPort) GBps() float64 {
	rate := p.PerLinkGBps
	if rate <= 0 {
		rate = nvlinkPerLinkGBps[p.Generation]
	}
	return float64(p.Links) * rate
}

// String names the port: "NVLink 4 x18".
func (p NVLinkPort) String() string { return fmt.Sprintf("NVLink %d x%d", p.Generation, p.Links) }

// SlowestNVLink is the port of a path with the lowest rate; false for an empty path or one
// with a port of unknown rate (the path's ceiling is then unknown too).
func SlowestNVLink(path []NVLinkPort) (NVLinkPort, bool) {
	var slowest NVLinkPort
	for i, p := range path {
		if p.GBps() <= 0 {
			return NVLinkPort{}, false
		}
		if i == 0 || p.GBps() < slowest.GBps() {
			slowest = p
		}
	}
	return slowest, len(path) > 0
}

func nvlinkLimit(p NVLinkPort, of string) Limit {
	rate := p.PerLinkGBps
	if rate <= 0 {
		rate = nvlinkPerLinkGBps[p.Generation]
	}
	return Limit{Component: NVLink, Name: fmt.Sprintf("%s of %s", p, of), Value: p.GBps() * 1000,
		Model: fmt.Sprintf("%d links x %g GB/s per direction", p.Links, rate)}
}
