package rules

import (
	"fmt"
	"reflect"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// What a started bench may change, and what is locked by a rule of its own rather than the
// measured-fields rule (api/v1alpha1/immutability_coverage_test.go holds the CRD to the same).
var (
	mutableOnceStarted = []string{"suspend", "results", "ttlSecondsAfterFinished"}
	lockedAtFirstCell  = []string{"topology.placement", "topology.server.placement", "topology.client.placement"}
	lockedWithVerdict  = []string{"acceptance"}
)

// comparedByField are the structs the rule compares field by field (topology and its sides,
// so that placement can stay free); every other field is compared whole.
var comparedByField = []reflect.Type{reflect.TypeOf(sbv1.TopologySpec{}), reflect.TypeOf(sbv1.SideSpec{})}

// cellStarted: anything in status that says a cell has run or runs (a start time, a cell
// result, an active attempt). Each is checked alone, so a status written without a phase (a
// client, a restore) still locks the spec.
const cellStarted = "has(oldSelf.status.startTime) || (has(oldSelf.status.cellResults) && size(oldSelf.status.cellResults) > 0) || " +
	"has(oldSelf.status.activeAttempt)"

// started: the bench has left Pending or a cell has started (Queued alone, waiting for a node
// before any cell, is not started).
const started = "(has(oldSelf.status) && ((has(oldSelf.status.phase) && !(oldSelf.status.phase in ['Pending', 'Queued'])) || " +
	cellStarted + "))"

// field is one spec field the rules compare: its path under spec and how unset reads.
type field struct {
	path, compare string
}

// Locked are the rules on a started bench, from SpiralBenchSpec's fields by reflection.
func Locked(a *API) ([]Rule, error) {
	var all []field
	if err := walk(a, reflect.TypeOf(sbv1.SpiralBenchSpec{}), "", &all); err != nil {
		return nil, err
	}
	var measured, placement, verdict []string
	for _, f := range all {
		switch {
		case containsString(mutableOnceStarted, f.path):
		case containsString(lockedAtFirstCell, f.path):
			placement = append(placement, f.compare)
		case containsString(lockedWithVerdict, f.path):
			verdict = append(verdict, f.compare)
		default:
			measured = append(measured, f.compare)
		}
	}
	and := func(cs []string) string { return "(" + strings.Join(cs, " && ") + ")" }
	return []Rule{
		{"!" + started + " || " + and(measured), measuredMessage},
		{"!has(oldSelf.status) || !(" + cellStarted + ") || " + and(placement), placementMessage},
		{"!" + started + " || " + and(verdict), verdictMessage},
	}, nil
}

// walk lists the json paths of t's fields with how each is compared.
func walk(a *API, t reflect.Type, prefix string, out *[]field) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if containsType(comparedByField, f.Type) {
			if err := walk(a, f.Type, prefix+name+".", out); err != nil {
				return err
			}
			continue
		}
		c, err := compare(prefix+name, f.Type, !strings.Contains(opts, "omitempty"), a.defaults[t.Name()+"."+f.Name])
		if err != nil {
			return err
		}
		*out = append(*out, field{prefix + name, c})
	}
	return nil
}

func containsType(ts []reflect.Type, t reflect.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// compare is the CEL test that a spec field is the same now and before, by its Go type: a
// required field is always set; a struct, a pointer or a string with a default is set in both
// or in neither and equal when set; a string without one may be unset or "" alike; a number,
// a bool or a list reads as its default (its zero value without one) when unset.
func compare(path string, t reflect.Type, required bool, def string) (string, error) {
	now, old := "self.spec."+path, "oldSelf.spec."+path
	has := func(x string) string { return "has(" + x + ")" }
	switch {
	case required:
		return now + " == " + old, nil
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Pointer, t.Kind() == reflect.String && def != "":
		return has(now) + " == " + has(old) + " && (!" + has(now) + " || " + now + " == " + old + ")", nil
	case t.Kind() == reflect.String:
		set := func(x string) string { return "(" + has(x) + " && size(" + x + ") > 0)" }
		return set(now) + " == " + set(old) + " && (!" + has(now) + " || size(" + now + ") == 0 || " + now + " == " + old + ")", nil
	}
	unset := def
	if unset == "" {
		switch t.Kind() {
		case reflect.Int32, reflect.Int64, reflect.Int:
			unset = "0"
		case reflect.Bool:
			unset = "false"
		case reflect.Slice:
			unset = "[]"
		default:
			return "", fmt.Errorf("spec.%s: no comparison for a %s", path, t)
		}
	}
	or := func(x string) string { return "(" + has(x) + " ? " + x + " : " + unset + ")" }
	return or(now) + " == " + or(old), nil
}

const measuredMessage = "a started bench keeps measuring the same thing: once it has left Pending (or has a start time, " +
	"a cell result or an active attempt), transport, roce, rawEthernet, socket, nccl, gpuCopy, matrix, workload, run, image, " +
	"imagePullSecrets, priorityClassName, topology.links, topology.mode, topology.mtu, topology.coreSharing and every field " +
	"of topology.server and topology.client except placement are fixed; only suspend, results and ttlSecondsAfterFinished " +
	"may change, and placement until the first cell starts. Delete and re-create the SpiralBench to measure something else"

const placementMessage = "placement (topology.placement, topology.server.placement, topology.client.placement) is fixed " +
	"once the first cell has started (status.startTime, a cell result or an active attempt): the nodes and " +
	"status.environment were chosen by it. Delete and re-create the SpiralBench to measure on other nodes"

const verdictMessage = "spec.acceptance is fixed once the bench has started: its Passed condition is judged by these " +
	"rules, and rules changed afterwards would stand beside a verdict they did not make. To judge the results by other " +
	"rules, create a new SpiralBench (a copy of this spec with the new acceptance)"
