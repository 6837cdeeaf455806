package fleet

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Bench kinds, in the label spiralbench.io/fleet-kind of the benches a fleet owns.
const (
	KindRound   = "round"   // a node (or pair) in a round
	KindIsolate = "isolate" // a failed pair's node against a partner that passed
	KindUpgrade = "upgrade" // a node after a driver upgrade
)

// BenchName is the deterministic name of a fleet's bench: the same round, kind and nodes
// always give the same name, so a manager restarted after creating a bench but before
// recording it finds the bench rather than creating a second one (creation is idempotent).
// It fits the SpiralBench name limit of 40 for fleet names up to 24 characters.
func BenchName(fleet string, round int32, kind string, nodes ...string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(kind + "\x00" + strings.Join(nodes, "\x00")))
	tag := "r"
	switch kind {
	case KindIsolate:
		tag = "i"
	case KindUpgrade:
		tag = "u"
	case KindFacts:
		tag = "f"
	}
	return fmt.Sprintf("%s-%s%d-%08x", fleet, tag, round, h.Sum32())
}
