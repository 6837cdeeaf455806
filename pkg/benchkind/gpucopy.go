package benchkind

import (
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// GPUCopy measures host<->device copies on each GPU of one node (seed 001's bandwidthTest):
// one pod holding topology.server.gpus GPUs, one process going through them in turn.
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
	return []string{
		"--directions", strings.Join(directions, ","), "--host-memory", strings.Join(memories, ","),
		"--min-bytes", i64(o.MinBytes, 1024), "--max-bytes", i64(o.MaxBytes, 256*MiB),
		"--step-factor", Itoa(max(o.StepFactor, 2)), "--iterations", Itoa(max(o.Iterations, 1)),
	}
}
