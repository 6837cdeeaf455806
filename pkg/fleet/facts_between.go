package fleet

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// A fleet with spec.factChecks reads each node's hardware facts between rounds with a facts
// pod (FactsPod) and judges them here: against the parts' own maximum, as a round does
// (hardwareReasons), and against the node's capture of its last round, so a fact that got worse
// counts even where the part's maximum is not known.

// KindFacts labels a fleet's facts pods (spiralbench.io/fleet-kind).
const KindFacts = "facts"

// LastRoundHardware is the node's hardware as its benches of the last round captured it (the
// capture of the bench that asked for the most GPUs).
func LastRoundHardware(benches []*sbv1.SpiralBench) Hardware {
	var h Hardware
	for _, sb := range benches {
		h = h.merge(hardwareOf(sb))
	}
	return h
}

// FactsCapture reads a facts pod's termination message: the data plane's environment message
// (its facts-only mode), or a run's summary with its "env" (an older data plane).
// The pod asks for no GPU: what it sees is every GPU the runtime shows it (NVIDIA_VISIBLE_DEVICES=all).
func FactsCapture(msg string) (Hardware, error) {
	var captured *summary.Env
	if strings.HasPrefix(strings.TrimSpace(msg), summary.EnvMessagePrefix) {
		m, err := summary.ParseEnvMessage(msg)
		if err != nil {
			return Hardware{}, err
		}
		if m.Env == nil {
			return Hardware{}, fmt.Errorf("the facts pod captured nothing: %s", m.Note)
		}
		captured = m.Env
	} else { // a data plane older than the facts-only mode: a run's summary with its capture
		s, err := summary.Parse(msg)
		if err != nil {
			return Hardware{}, err
		}
		captured = s.Env
	}
	if captured == nil {
		return Hardware{}, fmt.Errorf("the facts pod's summary has no environment capture")
	}
	env := &sbv1.Environment{}
	captured.Fill(env)
	return hardwareOfEnv(env, 0), nil
}

// FactsBetweenRounds are the reasons of a capture taken between rounds: what is wrong on its
// own, then what got worse than at the last round (a link narrower or slower, fewer NVLinks
// active, a GPU gone). A part both wrong and worse is named once. nodeGPUs is the node's
// allocatable nvidia.com/gpu (0: not known).
func FactsBetweenRounds(now, last Hardware, nodeGPUs int32) []Reason {
	out := hardwareReasons(now, nodeGPUs, false)
	named := map[string]bool{}
	for _, r := range out {
		named[string(r.Code)+"|"+partOf(r.Detail)] = true
	}
	add := func(code ReasonCode, part, detail string) {
		if !named[string(code)+"|"+part] {
			named[string(code)+"|"+part] = true
			out = append(out, Reason{Code: code, Detail: detail})
		}
	}
	// GPUs are compared by PCI address; a capture without NVML (none listed) says nothing of them.
	if len(now.GPUs) > 0 {
		index := map[string]int{}
		for i, g := range now.GPUs {
			index[g.Address] = i
		}
		for _, was := range last.GPUs {
			i, ok := index[was.Address]
			g := now.GPUs[i]
			switch {
			case !ok:
				add(GPUMissing, "GPU "+was.Address, "GPU "+was.Address+" gone since the last round")
			case worseLink(g.Gen, was.Gen, g.Width, was.Width, g.PState <= 0 && was.PState <= 0):
				add(PCIeDowntrained, "GPU "+g.Address, fmt.Sprintf("GPU %s Gen%d x%d (was Gen%d x%d)", g.Address, g.Gen, g.Width, was.Gen, was.Width))
			}
			if ok && g.NVLinksActive < was.NVLinksActive {
				add(NVLinkDown, fmt.Sprintf("GPU%d", i), fmt.Sprintf("GPU%d %d/%d (was %d)", i, g.NVLinksActive, g.NVLinks, was.NVLinksActive))
			}
		}
	}
	return out
}

// worseLink: narrower, or (where speed counts) a lower generation; unknown sides never count.
func worseLink(gen, wasGen, width, wasWidth int32, countSpeed bool) bool {
	return (width > 0 && wasWidth > 0 && width < wasWidth) || (countSpeed && gen > 0 && wasGen > 0 && gen < wasGen)
}

// partOf is the part a hardware reason's detail names: "GPU 0000:1b:00.0", "GPU3", "NIC eth0".
func partOf(detail string) string {
	n := 0
	for i, c := range detail {
		if c == ' ' {
			if n++; n == 2 || (n == 1 && detail[:i] != "GPU" && detail[:i] != "NIC") {
				return detail[:i]
			}
		}
	}
	return detail
}
