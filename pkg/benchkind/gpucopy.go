package benchkind

import (
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Admission's messages for a GPUCopy bench without GPUs or across nodes.
const (
	gpuCopyGPUs     = "transport GPUCopy measures the GPUs of one node"
	gpuCopyGPUCount = "to the number of GPUs to measure"
	gpuCopyOneNode  = gpuCopyGPUs + ": set topology.mode Loopback and topology.server.gpus " + gpuCopyGPUCount
)

// GPUCopy measures host<->device copies on each GPU of one node (seed 001's bandwidthTest), then
// between every ordered pair of its GPUs and all of them with the host at once: one pod holding
// topology.server.gpus GPUs, one process going through them.
func init() {
	Register(Profile{
		Transport:          sbv1.TransportGPUCopy,
		DataplaneTransport: "gpucopy",
		Backend:            "cuda",
		Ranks: func(*sbv1.SpiralBenchSpec) []Rank {
			return []Rank{{Name: RoleLoopback, Role: RoleLoopback, Sides: []Side{SideServer}, Node: 0, Receives: true, Sends: true}}
		},
		Headline: sbv1.CellParameters{Batch: 1, Pairs: 1, Queues: oneQueue},
		Flags:    gpuCopyFlags,
		Results:  &gpucopyResults,
		Admission: Admission{SpecField: "gpuCopy", SweepInCell: true, GPUs: gpuCopyGPUs, GPUCount: gpuCopyGPUCount,
			OneNode: gpuCopyOneNode},
		Describe: func(sbv1.CellParameters) string { return "size sweep per GPU (spec.gpuCopy)" },
	})
}

func gpuCopyFlags(spec *sbv1.SpiralBenchSpec, _ sbv1.CellParameters, _ Rank) []string {
	o := spec.GPUCopy
	if o == nil {
		o = &sbv1.GPUCopySpec{}
	}
	directions := []string{"h2d", "d2h", "d2d"}
	if len(o.Directions) > 0 {
		directions = directions[:0]
		for _, d := range o.Directions {
			directions = append(directions, strings.ToLower(string(d)))
		}
	}
	memories := []string{"pinned", "pageable"}
	if len(o.HostMemory) > 0 {
		memories = memories[:0]
		for _, m := range o.HostMemory {
			memories = append(memories, strings.ToLower(string(m)))
		}
	}
	flags := []string{
		"--directions", strings.Join(directions, ","), "--host-memory", strings.Join(memories, ","),
		"--min-bytes", i64(o.MinBytes, 1024), "--max-bytes", i64(o.MaxBytes, 256*MiB),
		"--step-factor", Itoa(max(o.StepFactor, 2)), "--iterations", Itoa(max(o.Iterations, 1)),
		"--peer-methods", lowerList(o.PeerMethods, "ce,sm"), "--peer-modes", peerModes(o.PeerModes),
		"--peer-bytes", peerBytes(o.PeerBytes), "--aggregate", lowerList(o.Aggregate, "h2d,d2h"),
	}
	return append(flags, gpuCopyLocalFlags(&o.GPUCopyLocalSpec)...)
}

// gpuCopyLocalFlags: the local tests' flags, none when the spec asks for none (the data plane's
// defaults measure nothing of them), so benches without them keep their cell unchanged.
func gpuCopyLocalFlags(o *sbv1.GPUCopyLocalSpec) []string {
	if len(o.LocalTests) == 0 && len(o.Latency) == 0 {
		return nil
	}
	tests := make([]string, len(o.LocalTests))
	for i, t := range o.LocalTests {
		tests[i] = map[sbv1.CopyLocalTest]string{sbv1.CopyLocalSMRead: "sm_read", sbv1.CopyLocalSMWrite: "sm_write"}[t]
	}
	local := strings.Join(tests, ",")
	if local == "" {
		local = "none"
	}
	return []string{"--local-tests", local, "--latency", lowerList(o.Latency, "none"),
		"--local-bytes", i64(o.LocalBytes, 512*MiB), "--local-repeats", Itoa(max(o.LocalRepeats, 1))}
}

// lowerList spells an enum list as the data plane's flags do ("CE,SM" -> "ce,sm", "None" ->
// "none"); fallback when empty (the CRD's default).
func lowerList[T ~string](values []T, fallback string) string {
	if len(values) == 0 {
		return fallback
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = strings.ToLower(string(v))
	}
	return strings.Join(out, ",")
}

func peerModes(modes []sbv1.CopyPeerMode) string {
	if len(modes) == 0 {
		return "uni,bi"
	}
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = map[sbv1.CopyPeerMode]string{sbv1.CopyPeerUnidirectional: "uni", sbv1.CopyPeerBidirectional: "bi"}[m]
	}
	return strings.Join(out, ",")
}

func peerBytes(sizes []int64) string {
	if len(sizes) == 0 {
		return i64(0, 256*MiB)
	}
	out := make([]string, len(sizes))
	for i, b := range sizes {
		out[i] = i64(b, 256*MiB)
	}
	return strings.Join(out, ",")
}
