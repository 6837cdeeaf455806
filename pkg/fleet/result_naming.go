package fleet

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// ResultName is the deterministic name of a node's SpiralBenchNodeResult in a round: the
// same fleet, round and node always give the same name, so a create retried after a manager
// restart finds the first one instead of writing a second row. The hash of all three keeps
// names apart that the readable part alone would not (fleet "a-1", round 2 and fleet "a",
// round 1, node "2-...").
func ResultName(fleet string, round int32, node string) string {
	base := fmt.Sprintf("%s-%d-%s", fleet, round, node)
	if len(base) > 243 {
		base = strings.TrimRight(base[:243], ".-")
	}
	return base + "-" + hash8(fmt.Sprintf("%s\x00%d\x00%s", fleet, round, node))
}

// NodeLabelValue is the node's name as a label value: itself when it fits (node names are
// lowercase DNS names, so at most 63 characters fit), else "h-" and a hash of it.
func NodeLabelValue(node string) string {
	if len(node) <= 63 && !strings.Contains(node, "..") {
		return node
	}
	return "h-" + hash8(node)
}

func hash8(s string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}
