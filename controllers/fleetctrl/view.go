package fleetctrl

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// annotationSubject names the node (or "server,client" pair) a fleet bench decides.
const annotationSubject = "spiralbench.io/fleet-subject"

// fleetView is what one step of a fleet knows: its pool, its rows and its benches.
type fleetView struct {
	f    *sbv1.SpiralBenchFleet
	pool map[string]*corev1.Node
	// rows by node name: the round's SpiralBenchNodeResults; the changed ones are written
	// back at the end of the step.
	rows map[string]*sbv1.FleetNode
	// loaded are the rows as read, with their resourceVersions (none: not written yet).
	loaded map[string]loadedRow
	// sorted caches sortedRows until a row is added or removed.
	sorted []*sbv1.FleetNode
	// benches of this fleet by kind and subject (the node, or "server,client").
	benches map[string]*sbv1.SpiralBench
	// memo keeps what earlier steps derived from the same cached objects (read_memo.go).
	memo *readMemo
	// withRepeats are finished benches with their attempts' repeats attached, read once per
	// step (repeatsOf).
	withRepeats map[*sbv1.SpiralBench]*sbv1.SpiralBench
	// busyNodes are in a bench or check of this fleet that has not finished (any kind, any
	// round), or have a Running row (its bench may not be in the cache yet); claimed are the
	// former alone.
	busyNodes map[string]bool
	claimed   map[string]bool
	// metric is the headline metric of rows, stragglers and baselines.
	metric string
	// toCreate are the benches and check pods this step decided to create (after its status
	// is written).
	toCreate []client.Object
	// steps are the fleet's suite, resolved (one step for spec.template).
	steps []fleet.Step
	// checks are the external check pods of this round, by kind, subject and step.
	checks map[string]*corev1.Pod
	// foreign says, by the same keys, why an object in a step's way is not the fleet's own.
	foreign map[string]string
	// walked holds the outcomes of the node walk (suite.go) is walking.
	walked []fleet.StepOutcome
	// next is, per node of a suite, the index of the step to create next.
	next map[string]int
	// isolate names, per node of a suite whose next step is a failed Pair step to run again
	// with a reference, the pair's bench; waitingForReference counts those no reference could
	// take this step.
	isolate             map[string]string
	waitingForReference int
	// forward are the nodes whose facts changed between rounds, with factChecks.onChange
	// BringRoundForward: the next round starts now and benches them whatever minIntervalSeconds says.
	forward map[string]bool
	// soon: this step changed an object no watch wakes the fleet for; step again shortly.
	soon bool
	// catalog is the fleet's reference catalog, read at most once per step.
	catalog *fleet.Catalog
	// the fleet's bucket, resolved at most once per step.
	bucketResolved bool
	bucket         *fleetBucket
	bucketErr      error
}

func benchKey(kind, subject string) string { return kind + "/" + subject }

// stepKey is the key of a suite step's bench or check; the step "" (spec.template) has the
// plain bench key.
func stepKey(kind, subject, step string) string {
	if step == "" {
		return benchKey(kind, subject)
	}
	return benchKey(kind, subject) + "#" + step
}

func pairSubject(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "," + b
}

func poolSelector(f *sbv1.SpiralBenchFleet) (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(&f.Spec.NodeSelector)
	if err != nil {
		return nil, &unusableSpecError{"spec.nodeSelector: " + err.Error() +
			": use matchLabels, or matchExpressions with the operators In, NotIn (with values), Exists or DoesNotExist (without)"}
	}
	return sel, nil
}

// unusableSpecError is a spec the apiserver accepted that the manager cannot use: the fleet
// says so in its SpecUsable condition and an event, and waits for the spec to change.
type unusableSpecError struct{ msg string }

func (e *unusableSpecError) Error() string { return e.msg }

// benchNodes are the nodes a fleet bench measures, from its placement.
func benchNodes(sb *sbv1.SpiralBench) []string {
	t := sb.Spec.Topology
	if t.Mode == sbv1.TopologyCrossNode {
		var out []string
		for _, p := range []*sbv1.Placement{t.Server.Placement, t.Client.Placement} {
			if p != nil && p.NodeName != "" {
				out = append(out, p.NodeName)
			}
		}
		return out
	}
	if t.Placement != nil && t.Placement.NodeName != "" {
		return []string{t.Placement.NodeName}
	}
	return nil
}

// claim marks nodes as in an unfinished bench or check of this fleet.
func (v *fleetView) claim(nodes ...string) {
	for _, n := range nodes {
		v.busyNodes[n], v.claimed[n] = true, true
	}
}

// sortedRows are the rows in name order, for decisions that must not depend on map order.
func (v *fleetView) sortedRows() []*sbv1.FleetNode {
	if v.sorted != nil && len(v.sorted) == len(v.rows) {
		return v.sorted
	}
	out := make([]*sbv1.FleetNode, 0, len(v.rows))
	for _, row := range v.rows {
		out = append(out, row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	v.sorted = out
	return out
}

// addRow and dropRow change the set of rows (and forget the sorted order).
func (v *fleetView) addRow(row *sbv1.FleetNode) {
	v.rows[row.Name] = row
	v.sorted = nil
}

func (v *fleetView) dropRow(name string) {
	delete(v.rows, name)
	v.sorted = nil
}

// syncPool adds a row for each node that joined the pool and marks those that left (their
// result says Left, with the verdict they had; the next round leaves them out).
func (v *fleetView) syncPool(roundActive bool) {
	for name := range v.pool {
		row, ok := v.rows[name]
		if !ok {
			v.addRow(&sbv1.FleetNode{Name: name, Verdict: sbv1.NodePending, Reason: "joined the pool"})
			if roundActive {
				v.f.Status.Counts.Joined++
			}
			continue
		}
		if row.Verdict == sbv1.NodeLeft {
			row.Verdict, row.Reason = sbv1.NodePending, "rejoined the pool"
		}
	}
	for name, row := range v.rows {
		if _, in := v.pool[name]; in {
			continue
		}
		if row.Verdict != sbv1.NodeLeft {
			if row.Verdict == sbv1.NodePending || row.Verdict == sbv1.NodeRunning {
				row.Reason = "left the pool before its verdict"
			} else {
				row.Reason = "left the pool after verdict " + string(row.Verdict)
			}
			row.Verdict = sbv1.NodeLeft
			if roundActive {
				v.f.Status.Counts.Left++
			}
		}
	}
}

// shorten keeps a message within n bytes.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n-3]) + "..."
}

func onlyIdle(f *sbv1.SpiralBenchFleet) bool { return ptr.Deref(f.Spec.OnlyIdleNodes, true) }

// loadedRow is a row as read, to write only what a step changed; row is the cache's (or
// this manager's last write of it): read it, never write it.
type loadedRow struct {
	rv  string
	row *sbv1.FleetNode
}

// fleetBucket is the fleet's bucket: spec.results, else the template's, else the operator's.
type fleetBucket struct {
	target bucket.Target
	prefix string
}
