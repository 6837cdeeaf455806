package fleet

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// ResultName is the deterministic name of a node's SpiralBenchNodeResult in a round: the
// same fleet, round and node always give the same name, so a create retried after a manager
// restart finds the first one instead of writing a second row.
func ResultName(fleet string, round int32, node string) string {
	name := fmt.Sprintf("%s-%d-%s", fleet, round, node)
	if len(name) <= 253 {
		return name
	}
	return strings.TrimRight(name[:240], ".-") + "-" + hash8(node)
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
