package benchkind

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// NVBandwidthRun is what `nvbandwidth -j` (NVIDIA's nvbandwidth, 0.8) prints: the machine and
// each testcase's matrix. A GPUCopy bench is compared with it (docs/benchmarks/gpucopy.md,
// "Beside nvbandwidth"); NVBandwidthFigures puts the testcases both measure onto our figures.
type NVBandwidthRun struct {
	Version       string   `json:"version"`
	CUDARuntime   int      `json:"CUDA Runtime Version"`
	DriverVersion string   `json:"Driver Version"`
	GPUs          []string `json:"GPU Device list"`
	// Error: why the whole run stopped (an unknown testcase, no GPU); empty when it ran.
	Error     string                `json:"error"`
	Testcases []NVBandwidthTestcase `json:"testcases"`
}

// NVBandwidthTestcase is one testcase: Passed with a matrix, or Waived (the machine lacks what
// it needs, such as a peer GPU), Not Found or Error without one.
type NVBandwidthTestcase struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Description string `json:"bandwidth_description"`
	Error       string `json:"error"`
	// Matrix rows are the CPU (host testcases, one row) or the source GPU; columns the GPU.
	// nvbandwidth prints each cell as a string, "N/A" where not measured: nil here.
	Matrix [][]*float64 `json:"-"`
	Sum    float64      `json:"sum"`
}

// ParseNVBandwidth reads nvbandwidth's JSON output.
func ParseNVBandwidth(data []byte) (*NVBandwidthRun, error) {
	var doc struct {
		Run *struct {
			NVBandwidthRun
			Testcases []struct {
				NVBandwidthTestcase
				Matrix [][]string `json:"bandwidth_matrix"`
			} `json:"testcases"`
		} `json:"nvbandwidth"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("nvbandwidth output: %w", err)
	}
	if doc.Run == nil {
		return nil, fmt.Errorf(`nvbandwidth output: no "nvbandwidth" object (was it run with -j?)`)
	}
	run := doc.Run.NVBandwidthRun
	run.Testcases = nil
	for _, t := range doc.Run.Testcases {
		tc := t.NVBandwidthTestcase
		for r, row := range t.Matrix {
			cells := make([]*float64, len(row))
			for c, s := range row {
				if s == "N/A" {
					continue
				}
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("nvbandwidth %s: cell [%d][%d] %q is not a number", tc.Name, r, c, s)
				}
				cells[c] = &v
			}
			tc.Matrix = append(tc.Matrix, cells)
		}
		if tc.Status == "Passed" && len(tc.Matrix) == 0 {
			return nil, fmt.Errorf("nvbandwidth %s: Passed without a bandwidth_matrix", tc.Name)
		}
		run.Testcases = append(run.Testcases, tc)
	}
	return &run, nil
}

// NVBandwidthFigure is one cell of a testcase GPUCopy also measures, named as our figure.
type NVBandwidthFigure struct {
	Testcase string
	// Ours: the GPUCopy figure measuring the same ("H2D Pinned", "D2H Pinned", "D2D",
	// "LatencyHost", "LatencyPeer").
	Ours         string
	Device, Peer int32 // Peer: the GPU whose memory LatencyPeer read; -1 otherwise
	Value        float64
	Unit         string // "GB/s" or "ns"
}

// nvbandwidthTwins: nvbandwidth's testcases that GPUCopy measures the same way, and the unit.
var nvbandwidthTwins = map[string][2]string{
	"host_to_device_memcpy_ce":    {"H2D Pinned", "GB/s"},
	"device_to_host_memcpy_ce":    {"D2H Pinned", "GB/s"},
	"device_local_copy":           {"D2D", "GB/s"},
	"host_device_latency_sm":      {"LatencyHost", "ns"},
	"device_to_device_latency_sm": {"LatencyPeer", "ns"},
}

// NVBandwidthFigures lists the measured cells of the Passed testcases GPUCopy also measures, in
// the run's order; cells nvbandwidth did not measure (N/A, the diagonal) are left out.
func (r *NVBandwidthRun) NVBandwidthFigures() []NVBandwidthFigure {
	var out []NVBandwidthFigure
	for _, t := range r.Testcases {
		twin, ok := nvbandwidthTwins[t.Name]
		if !ok || t.Status != "Passed" {
			continue
		}
		for row, cells := range t.Matrix {
			for col, v := range cells {
				if v == nil {
					continue
				}
				f := NVBandwidthFigure{Testcase: t.Name, Ours: twin[0], Device: int32(col), Peer: -1, Value: *v, Unit: twin[1]}
				if twin[0] == "LatencyPeer" { // rows the GPU that reads, columns the one read
					f.Device, f.Peer = int32(row), int32(col)
				}
				out = append(out, f)
			}
		}
	}
	return out
}
