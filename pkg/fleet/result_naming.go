package fleet

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// ResultName is the name of a node's SpiralBenchNodeResult in a round: fleet, round and node
// readable, then tag, which the manager derives from the same three with its provenance key
// (provenance.Key.Tag). The same fleet, round and node always give the same name, so a create
// retried after a manager restart finds the first one instead of writing a second row; and
// nobody without the key can know the name in advance and take it first.
func ResultName(fleet string, round int32, node, tag string) string {
	base := fmt.Sprintf("%s-%d-%s", fleet, round, node)
	if max := 253 - 1 - len(tag); len(base) > max {
		base = strings.TrimRight(base[:max], ".-")
	}
	return base + "-" + tag
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
