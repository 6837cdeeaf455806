package ceiling

import (
	"fmt"
	"math"
)

// DefaultSaturated is the busy share above which a core or a GPU's SMs count as the resource
// that bounds a measurement: a core at 95 % has no time left to move more.
const DefaultSaturated = 0.95

// CoreBusy is one core's busy share while the cell measured.
type CoreBusy struct {
	Core int
	// Role "RX" or "TX" (the side the core served), "" when not known.
	Role string
	// Share busy, 0..1.
	Share float64
}

// Evidence is a resource's load while the cell measured.
type Evidence struct {
	Component Component
	// Text says it: "RX core 3 busy 99 %", "GPU SMs 100 % (fft)".
	Text string
	// Share busy, 0..1; Saturated when it is above the threshold it was judged by.
	Share     float64
	Saturated bool
}

// BusiestCore is the evidence of the busiest core, saturated above threshold (0 takes
// DefaultSaturated); false without cores.
func BusiestCore(cores []CoreBusy, threshold float64) (Evidence, bool) {
	if len(cores) == 0 {
		return Evidence{}, false
	}
	busiest := cores[0]
	for _, c := range cores[1:] {
		if c.Share > busiest.Share {
			busiest = c
		}
	}
	role := busiest.Role
	if role != "" {
		role += " "
	}
	return Evidence{Component: CPU, Share: busiest.Share, Saturated: busiest.Share > thresholdOr(threshold),
		Text: fmt.Sprintf("%score %d busy %s", role, busiest.Core, percent(busiest.Share))}, true
}

// GPUSMBusy is the evidence of a GPU's SMs, saturated above threshold (0 takes
// DefaultSaturated); false when the share is unknown (negative).
func GPUSMBusy(share float64, work string, threshold float64) (Evidence, bool) {
	if share < 0 {
		return Evidence{}, false
	}
	text := "GPU SMs " + percent(share)
	if work != "" {
		text += " (" + work + ")"
	}
	return Evidence{Component: GPUSMs, Text: text, Share: share, Saturated: share > thresholdOr(threshold)}, true
}

// Evidence is the load the inputs carry: the busiest core and the GPU's SMs, judged against
// threshold (0 takes DefaultSaturated).
func (in Inputs) Evidence(threshold float64) []Evidence {
	var out []Evidence
	if e, ok := BusiestCore(in.Cores, threshold); ok {
		out = append(out, e)
	}
	if e, ok := GPUSMBusy(in.GPUSM, in.GPUWork, threshold); ok {
		out = append(out, e)
	}
	return out
}

func thresholdOr(t float64) float64 {
	if t <= 0 {
		return DefaultSaturated
	}
	return t
}

func percent(share float64) string { return fmt.Sprintf("%d %%", int(math.Round(share*100))) }
