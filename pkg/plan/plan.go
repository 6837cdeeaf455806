// Package plan expands a SpiralBench spec into its ordered list of cells. It is pure: the
// controller, the tests and the docs all call it, and it needs no cluster.
package plan

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// MaxCells bounds a plan so that status (one result per cell) stays small.
const MaxCells = 512

// Cell is one point of the sweep.
type Cell struct {
	// Index is the cell's position in the plan, from 0.
	Index int32
	// Headline marks the transport's headline cell, or the first cell when the plan lacks it.
	Headline bool
	sbv1.CellParameters
}

// Expand returns the cells of spec in DAQIRI's run order: queue cell, payload, batch, pairs,
// target rate, workload, workload batch, (forward mode) memory, work, the last varying fastest (run_spark_mq_bench.sh runs
// every payload of a queue cell before the next cell; run_spark_bench.sh nests payload, batch,
// pairs, target). Lists left empty take the preset's values for the transport.
func Expand(spec *sbv1.SpiralBenchSpec) ([]Cell, error) {
	kind, err := benchkind.For(spec)
	if err != nil {
		return nil, err
	}
	preset := spec.Matrix.Preset
	if preset == "" {
		preset = sbv1.PresetSmoke
	}
	d := presetDimensions(preset, kind)
	m := spec.Matrix
	d.payloads = orDefault(m.PayloadBytes, d.payloads)
	d.batches = orDefault(m.Batches, d.batches)
	d.pairs = orDefault(m.Pairs, d.pairs)
	d.queues = orDefault(m.Queues, d.queues)
	d.targets = orDefault(m.TargetRatesMbps, d.targets)
	d.workloads = orDefault(m.Workloads, []sbv1.WorkloadKind{sbv1.WorkloadNone})
	d.workloadBatches = orDefault(m.WorkloadBatchBytes, []int32{0})
	if w := spec.Workload; w != nil {
		if len(m.Workloads) == 0 && w.Kind != "" {
			d.workloads = []sbv1.WorkloadKind{w.Kind}
		}
		if len(m.WorkloadBatchBytes) == 0 {
			d.workloadBatches = []int32{w.BatchBytes}
		}
	}
	forwardDimensions(spec, preset, &d)
	// As DAQIRI: with a GPU workload the preset sweeps only the headline payload, the one
	// I/O unit large enough for the fixed GEMM operand.
	if len(m.PayloadBytes) == 0 && anyWorkload(d.workloads) {
		d.payloads = []int32{kind.Headline.PayloadBytes}
	}

	n := len(d.payloads) * len(d.batches) * len(d.pairs) * len(d.queues) * len(d.targets) * len(d.workloads) * len(d.workloadBatches) * len(d.works) * len(d.memories)
	if n > MaxCells {
		return nil, fmt.Errorf("the matrix expands to %d cells, more than %d: shorten the lists or split the sweep", n, MaxCells)
	}
	cells := make([]Cell, 0, n)
	for _, q := range d.queues {
		for _, payload := range d.payloads {
			for _, batch := range d.batches {
				for _, pairs := range d.pairs {
					for _, target := range d.targets {
						for _, w := range d.workloads {
							for _, wb := range d.workloadBatches {
								for _, mem := range d.memories {
									for _, work := range d.works {
										cells = append(cells, Cell{
											Index: int32(len(cells)),
											CellParameters: sbv1.CellParameters{
												PayloadBytes: payload, Batch: batch, Pairs: pairs, Queues: q,
												TargetRateMbps: target, Workload: w, WorkloadBatchBytes: wb,
												ForwardWork: work, Memory: mem,
											},
										})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	markHeadline(cells, kind.Headline)
	return cells, nil
}

// markHeadline marks the first cell with the headline's transport parameters, whatever its
// workload, or the first cell.
func markHeadline(cells []Cell, h sbv1.CellParameters) {
	if len(cells) == 0 {
		return
	}
	for i := range cells {
		p := cells[i].CellParameters
		p.Workload, p.WorkloadBatchBytes = "", 0
		if p == h {
			cells[i].Headline = true
			return
		}
	}
	cells[0].Headline = true
}

func anyWorkload(ws []sbv1.WorkloadKind) bool {
	for _, w := range ws {
		if w != "" && w != sbv1.WorkloadNone {
			return true
		}
	}
	return false
}

func orDefault[T any](given, preset []T) []T {
	if len(given) > 0 {
		return given
	}
	return preset
}
