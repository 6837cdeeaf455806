package controllers

import (
	"context"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
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
	// next is, per node of a suite, the index of the step to create next.
	next map[string]int
	// isolate names, per node of a suite whose next step is a failed Pair step to run again
	// with a reference, the pair's bench; waitingForReference counts those no reference could
	// take this step.
	isolate             map[string]string
	waitingForReference int
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

// finished: the bench ended, or the fleet ended it at its step's deadline.
func finished(sb *sbv1.SpiralBench) bool {
	return sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed || sb.Annotations[annotationDeadlineExceeded] != ""
}

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

// view reads the pool and the owned benches from the cache. Lists skip the cache's deep copy:
// the step only reads these objects.
func (r *FleetReconciler) view(ctx context.Context, f *sbv1.SpiralBenchFleet) (*fleetView, error) {
	v := &fleetView{f: f, pool: map[string]*corev1.Node{}, rows: map[string]*sbv1.FleetNode{}, loaded: map[string]loadedRow{},
		benches: map[string]*sbv1.SpiralBench{}, busyNodes: map[string]bool{}, claimed: map[string]bool{}, metric: string(sbv1.MetricRxMbps),
		steps: fleet.Steps(&f.Spec), checks: map[string]*corev1.Pod{}, next: map[string]int{}, isolate: map[string]string{},
		foreign: map[string]string{}}
	r.foreign.of(f, v.foreign)
	if s := f.Spec.Stragglers; s != nil && s.Metric != "" {
		v.metric = string(s.Metric)
	} else if b := f.Spec.Baseline; b != nil && b.Metric != "" {
		v.metric = string(b.Metric)
	}
	sel, err := poolSelector(f)
	if err != nil {
		return nil, err
	}
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes, client.MatchingLabelsSelector{Selector: sel}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	for i := range nodes.Items {
		if nodes.Items[i].DeletionTimestamp == nil {
			v.pool[nodes.Items[i].Name] = &nodes.Items[i]
		}
	}
	if err := r.loadRows(ctx, v); err != nil {
		return nil, err
	}
	for name, row := range v.rows {
		if row.Verdict == sbv1.NodeRunning {
			v.busyNodes[name] = true // its bench may not be in the cache yet
		}
	}
	var benches sbv1.SpiralBenchList
	if err := r.List(ctx, &benches, client.InNamespace(f.Namespace), client.MatchingLabels{LabelFleet: f.Name}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	for i := range benches.Items {
		sb := &benches.Items[i]
		if !metav1.IsControlledBy(sb, f) {
			continue
		}
		if !trusted(r.Provenance, sb) {
			continue // not the fleet's, whatever its labels say (createMarked notes one in a step's way)
		}
		kind := sb.Labels[LabelFleetKind]
		round, _ := strconv.Atoi(sb.Labels[LabelFleetRound])
		if kind != fleet.KindUpgrade && int32(round) != f.Status.Round {
			if !finished(sb) {
				v.claim(benchNodes(sb)...)
			}
			continue // an earlier round's bench decides nothing now
		}
		key := stepKey(kind, sb.Annotations[annotationSubject], sb.Labels[LabelFleetStep])
		if kind == fleet.KindUpgrade {
			key += "/" + sb.Labels[LabelFleetRound] // the gate id
		}
		v.benches[key] = sb
		if !finished(sb) {
			v.claim(benchNodes(sb)...)
		}
	}
	if f.Spec.Suite != nil {
		if err := r.viewChecks(ctx, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// viewChecks reads the check pods of this round's suite steps.
func (r *FleetReconciler) viewChecks(ctx context.Context, v *fleetView) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(v.f.Namespace), client.MatchingLabels{LabelFleet: v.f.Name}, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		kind := p.Labels[LabelFleetKind]
		round, _ := strconv.Atoi(p.Labels[LabelFleetRound])
		if !trusted(r.Provenance, p) {
			continue // as for benches
		}
		if !metav1.IsControlledBy(p, v.f) || (kind != fleet.KindUpgrade && int32(round) != v.f.Status.Round) {
			if metav1.IsControlledBy(p, v.f) && !fleet.CheckDone(p) {
				v.claim(p.Spec.NodeName)
			}
			continue
		}
		key := stepKey(kind, p.Annotations[annotationSubject], p.Labels[LabelFleetStep])
		if kind == fleet.KindUpgrade {
			key += "/" + p.Labels[LabelFleetRound] // the gate id
		}
		v.checks[key] = p
		if !fleet.CheckDone(p) {
			v.claim(p.Spec.NodeName)
		}
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

// gated says whether the node is held by the upgrade gate (it is not benched in rounds then).
func gated(node *corev1.Node) (string, bool) {
	for _, t := range node.Spec.Taints {
		if t.Key == taintUpgradeGate {
			return t.Value, true
		}
	}
	return "", false
}

func onlyIdle(f *sbv1.SpiralBenchFleet) bool { return ptr.Deref(f.Spec.OnlyIdleNodes, true) }
