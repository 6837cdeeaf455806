package v1alpha1

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The CRD's longest rules are written out here, one field or one dimension a line, and
// TestCELRulesMatchTheirTables holds the kubebuilder markers in spiralbench_types.go (a marker
// is one line) to these tables: change a table and run
//
//	go test ./api/v1alpha1 -run TestCELRulesMatchTheirTables -update-cel-rules
//
// to rewrite the markers, then make manifests. Every refusal and message stays as written.
var updateCELRules = flag.Bool("update-cel-rules", false, "rewrite the CEL markers in spiralbench_types.go from their tables")

// compare is how the immutability rule compares one spec field before and after an update.
type compare int

const (
	// required: the field is always set.
	required compare = iota
	// optional: set in both or in neither, and equal when set (structs, enums without a default).
	optional
	// nonEmpty: a string where unset and "" mean the same.
	nonEmpty
	// defaulted: unset means the value in lockedField.unset.
	defaulted
)

type lockedField struct {
	path  string
	how   compare
	unset string // for defaulted
}

// sideFields are topology.server's and topology.client's, placement aside (lockedAtFirstCell).
func sideFields(side string) []lockedField {
	p := "topology." + side + "."
	return []lockedField{
		{p + "hostNetwork", defaulted, "false"}, {p + "networks", defaulted, "[]"}, {p + "address", nonEmpty, ""},
		{p + "devices", defaulted, "[]"}, {p + "hugepages", optional, ""}, {p + "gpus", defaulted, "0"},
		{p + "cores", optional, ""}, {p + "privileged", defaulted, "false"},
	}
}

// measuredFields are fixed once a bench has started (immutability_coverage_test.go checks
// that every spec field is here or on its mutable lists).
var measuredFields = append(append([]lockedField{
	{"transport", required, ""},
	{"roce", optional, ""}, {"rawEthernet", optional, ""}, {"socket", optional, ""}, {"nccl", optional, ""},
	{"gpuCopy", optional, ""}, {"workload", optional, ""}, {"matrix", optional, ""}, {"run", optional, ""},
	{"image", nonEmpty, ""}, {"imagePullSecrets", defaulted, "[]"}, {"priorityClassName", nonEmpty, ""},
	{"topology.links", defaulted, "1"}, {"topology.mode", optional, ""}, {"topology.mtu", optional, ""},
	{"topology.coreSharing", optional, ""},
}, sideFields("server")...), sideFields("client")...)

var placementFields = []lockedField{
	{"topology.placement", optional, ""}, {"topology.server.placement", optional, ""}, {"topology.client.placement", optional, ""},
}

func (f lockedField) rule() string {
	now, old := "self.spec."+f.path, "oldSelf.spec."+f.path
	has := func(x string) string { return "has(" + x + ")" }
	switch f.how {
	case required:
		return now + " == " + old
	case optional:
		return has(now) + " == " + has(old) + " && (!" + has(now) + " || " + now + " == " + old + ")"
	case nonEmpty:
		set := func(x string) string { return "(" + has(x) + " && size(" + x + ") > 0)" }
		return set(now) + " == " + set(old) + " && (!" + has(now) + " || size(" + now + ") == 0 || " + now + " == " + old + ")"
	}
	or := func(x string) string { return "(" + has(x) + " ? " + x + " : " + f.unset + ")" }
	return or(now) + " == " + or(old)
}

func allOf(fields []lockedField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.rule()
	}
	return "(" + strings.Join(parts, " && ") + ")"
}

// cellStarted: anything in status that says a cell has run or runs (a start time, a cell
// result, an active attempt). Each is checked alone, so a status written without a phase (a
// client, a restore) still locks the spec.
const cellStarted = "has(oldSelf.status.startTime) || (has(oldSelf.status.cellResults) && size(oldSelf.status.cellResults) > 0) || " +
	"has(oldSelf.status.activeAttempt)"

// started: the bench has left Pending or a cell has started (Queued alone, waiting for a node
// before any cell, is not started).
const started = "(has(oldSelf.status) && ((has(oldSelf.status.phase) && !(oldSelf.status.phase in ['Pending', 'Queued'])) || " +
	cellStarted + "))"

func measuredRule() string { return "!" + started + " || " + allOf(measuredFields) }

func placementRule() string {
	return "!has(oldSelf.status) || !(" + cellStarted + ") || " + allOf(placementFields)
}

// acceptanceFields are fixed once started too: the Passed condition was judged by them, and
// rules changed afterwards would stand beside a verdict they never made.
var acceptanceFields = []lockedField{{"acceptance", optional, ""}}

func acceptanceRule() string { return "!" + started + " || " + allOf(acceptanceFields) }

const measuredMessage = "a started bench keeps measuring the same thing: once it has left Pending (or has a start time, " +
	"a cell result or an active attempt), transport, roce, rawEthernet, socket, nccl, gpuCopy, matrix, workload, run, image, " +
	"imagePullSecrets, priorityClassName, topology.links, topology.mode, topology.mtu, topology.coreSharing and every field " +
	"of topology.server and topology.client except placement are fixed; only suspend, results and ttlSecondsAfterFinished " +
	"may change, and placement until the first cell starts. Delete and re-create the SpiralBench to measure something else"

const placementMessage = "placement (topology.placement, topology.server.placement, topology.client.placement) is fixed " +
	"once the first cell has started (status.startTime, a cell result or an active attempt): the nodes and " +
	"status.environment were chosen by it. Delete and re-create the SpiralBench to measure on other nodes"

const acceptanceMessage = "spec.acceptance is fixed once the bench has started: its Passed condition is judged by these " +
	"rules, and rules changed afterwards would stand beside a verdict they did not make. To judge the results by other " +
	"rules, create a new SpiralBench (a copy of this spec with the new acceptance)"

// cellBoundDimensions are the matrix lists the 512-cell bound multiplies, each with the size a
// preset fills it with when the user leaves it empty. The sizes repeat the planner's preset
// lists (pkg/plan/presets.go and each kind's Sweep in pkg/benchkind);
// pkg/plan's TestCellBoundRuleMatchesThePlanner evaluates the generated rule against the
// planner for every kind and preset admission lets through.
var cellBoundDimensions = []struct{ list, presetSize string }{
	{"payloadBytes", "self.matrix.preset in ['QueueScaling', 'ForwardPacketSize'] ? 5 : " +
		"(self.matrix.preset in ['Sweep', 'NoDropRate'] ? (self.transport == 'UDP' ? 2 : (self.transport == 'TCP' ? 3 : 5)) : 1)"},
	{"batches", "self.matrix.preset == 'ForwardBurst' || (self.matrix.preset == 'Sweep' && self.transport == 'RawEthernet') ? 4 : 1"},
	{"pairs", "self.matrix.preset == 'Sweep' && self.transport in ['TCP', 'UDP'] ? 3 : 1"},
	{"queues", "self.matrix.preset == 'QueueScaling' ? 4 : 1"},
	{"targetRatesMbps", "self.matrix.preset == 'DropCurve' ? 8 : 1"},
	{"workloads", "1"},
	{"workloadBatchBytes", "1"},
	{"forwardWorks", "self.matrix.preset == 'ForwardBurst' ? 3 : 1"},
	{"memories", "self.matrix.preset == 'ForwardPacketSize' ? 2 : 1"},
}

const maxCells = 512

func cellBoundRule() string {
	factors := make([]string, len(cellBoundDimensions))
	for i, d := range cellBoundDimensions {
		l := "self.matrix." + d.list
		preset := d.presetSize
		if preset != "1" {
			preset = "(" + preset + ")"
		}
		factors[i] = fmt.Sprintf("(has(%s) && size(%s) > 0 ? size(%s) : %s)", l, l, l, preset)
	}
	return fmt.Sprintf("%s <= %d", strings.Join(factors, " * "), maxCells)
}

const cellBoundMessage = "the matrix expands to more than 512 cells (payloads x batches x pairs x queues x target rates x " +
	"workloads x workload batches x forward works x memories, a preset filling empty lists): shorten the lists or split " +
	"the sweep into several SpiralBenches"

// celMarker is the kubebuilder marker line of a rule.
func celMarker(rule, message string) string {
	return fmt.Sprintf("// +kubebuilder:validation:XValidation:rule=%q,message=%q", rule, message)
}

func TestCELRulesMatchTheirTables(t *testing.T) {
	const file = "spiralbench_types.go"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	changed := false
	for _, want := range []struct{ prefix, marker string }{
		{"a started bench keeps measuring", celMarker(measuredRule(), measuredMessage)},
		{"placement (topology.placement", celMarker(placementRule(), placementMessage)},
		{"spec.acceptance is fixed once the bench has started", celMarker(acceptanceRule(), acceptanceMessage)},
		{"the matrix expands to more than 512 cells", celMarker(cellBoundRule(), cellBoundMessage)},
	} {
		found := false
		for i, l := range lines {
			if !strings.Contains(l, `message="`+want.prefix) {
				continue
			}
			found = true
			if l != want.marker {
				if *updateCELRules {
					lines[i], changed = want.marker, true
					continue
				}
				t.Errorf("%s: the marker for %q is not its table's; run go test ./api/v1alpha1 -run %s -update-cel-rules, then make manifests\nwant: %s\ngot:  %s",
					file, want.prefix, t.Name(), want.marker, l)
			}
		}
		if !found {
			t.Errorf("%s has no marker for %q", file, want.prefix)
		}
	}
	if changed {
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
