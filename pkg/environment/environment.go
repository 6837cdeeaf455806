// Package environment is the one definition of what makes two runs comparable: the keys of
// status.environment, how each reads, and which must match by default. The baseline of a
// bench (pkg/acceptance), a fleet's history baseline (pkg/fleet) and sbctl compare (pkg/compare)
// all diff environments here.
package environment

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// field reads one key of an environment as text ("" when not recorded).
type field struct {
	key  sbv1.EnvironmentKey
	read func(e *sbv1.Environment) string
}

func nics(e *sbv1.Environment, part func(n sbv1.NICEnvironment) string) string {
	var out []string
	for _, n := range e.NICs {
		out = append(out, n.Interface+"="+part(n))
	}
	return strings.Join(out, ",")
}

func numa(p *int32) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}

// fields in the order diffs list them.
var fields = []field{
	{"gpuModel", func(e *sbv1.Environment) string { return e.GPUModel }},
	{"gpuDriver", func(e *sbv1.Environment) string { return e.GPUDriver }},
	{"cudaVersion", func(e *sbv1.Environment) string { return e.CUDAVersion }},
	{"nicDriver", func(e *sbv1.Environment) string { return e.NICDriver }},
	{"nicFirmware", func(e *sbv1.Environment) string { return e.NICFirmware }},
	{"nicLink", func(e *sbv1.Environment) string {
		return nics(e, func(n sbv1.NICEnvironment) string {
			return fmt.Sprintf("%dMb/s mtu %d rings %d/%d", n.SpeedMbps, n.MTU, n.RXRing, n.TXRing)
		})
	}},
	{"pcie", func(e *sbv1.Environment) string {
		s := nics(e, func(n sbv1.NICEnvironment) string {
			return fmt.Sprintf("gen%d x%d numa %s", n.PCIeGeneration, n.PCIeWidth, numa(n.NUMANode))
		})
		if e.GPUPCIeWidth > 0 || e.GPUNUMANode != nil {
			s += fmt.Sprintf(";gpu=gen%d x%d numa %s", e.GPUPCIeGeneration, e.GPUPCIeWidth, numa(e.GPUNUMANode))
		}
		return s
	}},
	{"kernel", func(e *sbv1.Environment) string { return e.Kernel }},
	{"kernelCmdline", func(e *sbv1.Environment) string { return e.KernelCmdline }},
	{"isolatedCPUs", func(e *sbv1.Environment) string { return e.IsolatedCPUs }},
	{"cpuGovernor", func(e *sbv1.Environment) string { return e.CPUGovernor }},
	{"cpu", func(e *sbv1.Environment) string {
		if e.CPUModel == "" && e.CPUs == 0 {
			return ""
		}
		return fmt.Sprintf("%s, %d CPUs (%d usable by the pod)", e.CPUModel, e.CPUs, e.CPUsUsable)
	}},
	{"hugepages", func(e *sbv1.Environment) string {
		if e.HugepagesTotal == 0 && e.HugepageSizeKiB == 0 {
			return ""
		}
		return fmt.Sprintf("%d x %d KiB", e.HugepagesTotal, e.HugepageSizeKiB)
	}},
	{"image", func(e *sbv1.Environment) string { return e.Image }},
	{"imageDigest", func(e *sbv1.Environment) string { return e.ImageDigest }},
	{"dataplaneRevision", func(e *sbv1.Environment) string { return e.DataplaneRevision }},
}

// Keys is every key, in the order diffs list them (the EnvironmentKey enum's values).
func Keys() []sbv1.EnvironmentKey {
	out := make([]sbv1.EnvironmentKey, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// BaselineKeys must match for a bench's requireSameEnvironment when environmentKeys is empty.
var BaselineKeys = []sbv1.EnvironmentKey{"gpuDriver", "nicFirmware", "kernel", "image"}

// HistoryKeys must match for a fleet's history baseline when environmentKeys is empty: a
// driver upgrade starts a new history (comparing across it is the upgrade gate's job).
var HistoryKeys = []sbv1.EnvironmentKey{"gpuDriver", "nicDriver", "nicFirmware", "kernel", "image"}

// Difference is one key whose values differ.
type Difference struct {
	Key  sbv1.EnvironmentKey
	A, B string
}

func (d Difference) String() string { return fmt.Sprintf("%s %q vs %q", d.Key, d.A, d.B) }

// Diff lists the keys (in Keys order) whose values differ between a and b; a nil environment
// reads as empty. Unknown keys are ignored (admission refuses them).
func Diff(a, b *sbv1.Environment, keys []sbv1.EnvironmentKey) []Difference {
	want := map[sbv1.EnvironmentKey]bool{}
	for _, k := range keys {
		want[k] = true
	}
	ea, eb := orEmpty(a), orEmpty(b)
	var out []Difference
	for _, f := range fields {
		if !want[f.key] {
			continue
		}
		if x, y := f.read(ea), f.read(eb); x != y {
			out = append(out, Difference{Key: f.key, A: x, B: y})
		}
	}
	return out
}

// Comparable says whether a and b agree on every key.
func Comparable(a, b *sbv1.Environment, keys []sbv1.EnvironmentKey) bool {
	return len(Diff(a, b, keys)) == 0
}

// KeysOr is keys, or fallback when keys is empty.
func KeysOr(keys, fallback []sbv1.EnvironmentKey) []sbv1.EnvironmentKey {
	if len(keys) == 0 {
		return fallback
	}
	return keys
}

func orEmpty(e *sbv1.Environment) *sbv1.Environment {
	if e == nil {
		return &sbv1.Environment{}
	}
	return e
}

// Values lists every key with its value, in Keys order; "not captured" where the run's data
// plane recorded nothing for it (an older data plane, no GPU, no NIC with that counter).
func Values(e *sbv1.Environment) [][2]string {
	ee := orEmpty(e)
	out := make([][2]string, 0, len(fields))
	for _, f := range fields {
		v := f.read(ee)
		if v == "" {
			v = "not captured"
		}
		out = append(out, [2]string{string(f.key), v})
	}
	return out
}
