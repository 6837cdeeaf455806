package benchctrl

import (
	"fmt"
	"slices"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// ReasonCoresShared marks the warning event of a bench whose core map shares cores on purpose.
const ReasonCoresShared = "CoresShared"

// sharedCores describes the cores a bench's core maps give to more than one busy-polling
// thread (pollers, workers, or a master beside them; both sides count together on one node),
// or returns "" when none is shared. Admission refuses such maps unless topology.coreSharing
// is Shared; then this names them in a warning event, since shared cores lower the numbers.
func sharedCores(spec *sbv1.SpiralBenchSpec) string {
	t := spec.Topology
	sides := [][]*sbv1.CoreMap{{t.Server.Cores}, {t.Client.Cores}}
	if t.Mode != sbv1.TopologyCrossNode {
		sides = [][]*sbv1.CoreMap{{t.Server.Cores, t.Client.Cores}}
	}
	var found []string
	for _, maps := range sides {
		uses := map[int32]int{}
		var masters []int32
		for _, m := range maps {
			if m == nil {
				continue
			}
			for _, c := range slices.Concat(m.Pollers, m.Workers) {
				uses[c]++
			}
			if m.Master != nil {
				masters = append(masters, *m.Master)
			}
		}
		for _, c := range masters {
			if uses[c] > 0 {
				uses[c]++ // a master beside a busy thread
			}
		}
		var cores []int
		for c, n := range uses {
			if n > 1 {
				cores = append(cores, int(c))
			}
		}
		slices.Sort(cores)
		for _, c := range cores {
			found = append(found, fmt.Sprint(c))
		}
	}
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("topology.coreSharing is Shared and cores %s run more than one busy-polling thread: "+
		"the numbers are those of shared cores", strings.Join(found, ", "))
}
