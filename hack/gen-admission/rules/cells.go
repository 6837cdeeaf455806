package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// maxCells is the most cells one SpiralBench may expand to.
const maxCells = 512

// presetSize is how long a list a preset fills for every kind that may use it; the planner's
// lists (pkg/plan: presets.go, forward.go), which pkg/plan's TestCellBoundRuleMatchesThePlanner
// holds the generated rule to.
type presetSize struct {
	presets []string
	n       int
}

// dimension is one matrix list the bound multiplies: what the presets fill it with, and which
// presets fill it from each kind's Sweep (kindSize).
type dimension struct {
	list     string
	presets  []presetSize
	sweep    []string
	kindSize func(benchkind.Profile) int
}

func sweepLen(l []int32) int { return max(len(l), 1) }

var dimensions = []dimension{
	{"payloadBytes", []presetSize{{[]string{"QueueScaling", "ForwardPacketSize"}, 5}}, []string{"Sweep", "NoDropRate"},
		func(k benchkind.Profile) int { return sweepLen(k.Sweep.PayloadBytes) }},
	{"batches", []presetSize{{[]string{"ForwardBurst"}, 4}}, []string{"Sweep"},
		func(k benchkind.Profile) int { return sweepLen(k.Sweep.Batches) }},
	{"pairs", nil, []string{"Sweep"}, func(k benchkind.Profile) int { return sweepLen(k.Sweep.Pairs) }},
	{"queues", []presetSize{{[]string{"QueueScaling"}, 4}}, nil, nil},
	{"targetRatesMbps", []presetSize{{[]string{"DropCurve"}, 8}}, nil, nil},
	{"workloads", nil, nil, nil},
	{"workloadBatchBytes", nil, nil, nil},
	{"forwardWorks", []presetSize{{[]string{"ForwardBurst"}, 3}}, nil, nil},
	{"memories", []presetSize{{[]string{"ForwardPacketSize"}, 2}}, nil, nil},
}

// CellBound: the product of the matrix's list sizes, a preset filling the empty ones, is at
// most maxCells.
func CellBound(ks Kinds) Rule {
	factors := make([]string, len(dimensions))
	for i, d := range dimensions {
		l := "self.matrix." + d.list
		factors[i] = fmt.Sprintf("(has(%s) && size(%s) > 0 ? size(%s) : %s)", l, l, l, d.presetSize(ks))
	}
	return Rule{fmt.Sprintf("%s <= %d", strings.Join(factors, " * "), maxCells),
		fmt.Sprintf("the matrix expands to more than %d cells (payloads x batches x pairs x queues x target rates x "+
			"workloads x workload batches x forward works x memories, a preset filling empty lists): shorten the lists or "+
			"split the sweep into several SpiralBenches", maxCells)}
}

func (d dimension) presetSize(ks Kinds) string {
	expr := "1"
	if d.kindSize != nil {
		if byKind := ks.bySize(d.kindSize); byKind != "1" {
			expr = "(" + presetIs(d.sweep) + " ? " + byKind + " : 1)"
		}
	}
	for i := len(d.presets) - 1; i >= 0; i-- {
		p := d.presets[i]
		expr = fmt.Sprintf("(%s ? %d : %s)", presetIs(p.presets), p.n, expr)
	}
	return expr
}

func presetIs(presets []string) string {
	if len(presets) == 1 {
		return "self.matrix.preset == '" + presets[0] + "'"
	}
	return "self.matrix.preset in " + set(presets).list()
}

// bySize is each kind's size: the size most kinds share, and the others by transport. Kinds
// that sweep inside one cell use the preset Smoke alone, so they are left out.
func (ks Kinds) bySize(size func(benchkind.Profile) int) string {
	groups := map[int]set{}
	for _, k := range ks {
		if !k.Admission.SweepInCell {
			groups[size(k)] = append(groups[size(k)], string(k.Transport))
		}
	}
	sizes := make([]int, 0, len(groups))
	for n := range groups {
		sizes = append(sizes, n)
	}
	// the commonest size is the default, of a tie the smaller (1: a list the Sweep leaves alone)
	sort.Slice(sizes, func(i, j int) bool {
		if len(groups[sizes[i]]) != len(groups[sizes[j]]) {
			return len(groups[sizes[i]]) > len(groups[sizes[j]])
		}
		return sizes[i] < sizes[j]
	})
	if len(sizes) == 0 {
		return "1"
	}
	expr := fmt.Sprint(sizes[0])
	for i := len(sizes) - 1; i >= 1; i-- {
		expr = fmt.Sprintf("(%s ? %d : %s)", groups[sizes[i]].is("self"), sizes[i], expr)
	}
	return expr
}
