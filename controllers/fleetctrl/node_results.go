package fleetctrl

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/incache"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// A fleet's per-node rows live in SpiralBenchNodeResults, one per node and round, so the
// fleet's own status stays the same size whatever the pool's size and a decided node costs one
// small write, not a rewrite of every row. The step reads them from the informer cache; what
// this manager wrote and the cache has not shown yet comes from resultOverlay.

// keptRounds is how many rounds' results a fleet keeps; older ones go when a round starts.
const keptRounds = 5

// resultIndexKey names a fleet's round ("namespace/fleet/round") in resultOverlay.
func resultIndexKey(ns, fleetName string, round int32) string {
	return ns + "/" + fleetName + "/" + strconv.Itoa(int(round))
}

// resultOverlay holds the results this manager wrote until the cache shows them: the
// manager's own writes read back at once, so a step never decides on a row older than the
// one the step before it wrote. A restarted manager starts with an empty overlay and a cache
// listed from the apiserver, which holds every write of the previous life.
type resultOverlay struct {
	mu sync.Mutex
	// by index key, then result name.
	m map[string]map[string]*sbv1.SpiralBenchNodeResult
}

func (o *resultOverlay) put(r *sbv1.SpiralBenchNodeResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]map[string]*sbv1.SpiralBenchNodeResult{}
	}
	key := resultIndexKey(r.Namespace, r.Fleet, r.Round)
	if o.m[key] == nil {
		o.m[key] = map[string]*sbv1.SpiralBenchNodeResult{}
	}
	o.m[key][r.Name] = r
}

// merge returns the newest of each result: the cache's, or this manager's own write that
// the cache has not shown yet. Entries the cache has caught up with are dropped.
func (o *resultOverlay) merge(key string, cached []*sbv1.SpiralBenchNodeResult) []*sbv1.SpiralBenchNodeResult {
	o.mu.Lock()
	defer o.mu.Unlock()
	own := o.m[key]
	out := make([]*sbv1.SpiralBenchNodeResult, 0, len(cached)+len(own))
	seen := make(map[string]bool, len(own))
	for _, c := range cached {
		if w, ok := own[c.Name]; ok {
			seen[c.Name] = true
			if olderThan(c.ResourceVersion, w.ResourceVersion) {
				out = append(out, w) // the cache has not shown this manager's write yet
				continue
			}
			delete(own, c.Name) // caught up (or written since by someone else: theirs is newer)
		}
		out = append(out, c)
	}
	for name, w := range own {
		if !seen[name] {
			out = append(out, w)
		}
	}
	return out
}

// olderThan compares resourceVersions as etcd writes them (increasing integers, which the
// apiserver's watch cache relies on too); one that does not parse is never older.
func olderThan(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x < y
}

func (o *resultOverlay) forget(r *sbv1.SpiralBenchNodeResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m[resultIndexKey(r.Namespace, r.Fleet, r.Round)], r.Name)
}

// forgetBefore drops the overlay's entries of the fleet's rounds before round.
func (o *resultOverlay) forgetBefore(ns, fleetName string, round int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for r := round - 1; r >= 0 && r >= round-keptRounds-1; r-- {
		delete(o.m, resultIndexKey(ns, fleetName, r))
	}
}

// loadRows reads the round's rows of the fleet (cache and overlay) into the view.
func (r *Reconciler) loadRows(ctx context.Context, v *fleetView) error {
	f := v.f
	key := resultIndexKey(f.Namespace, f.Name, f.Status.Round)
	cached, err := incache.Objects(ctx, r.cache, r.Client, &sbv1.SpiralBenchNodeResult{}, &sbv1.SpiralBenchNodeResultList{}, f.Namespace,
		func(res *sbv1.SpiralBenchNodeResult) bool { return res.Fleet == f.Name && res.Round == f.Status.Round })
	if err != nil {
		return err
	}
	merged := r.overlay.merge(key, cached)
	// The step's own rows, in one buffer kept from step to step: a step reads every row of the
	// round, and a row apiece was most of a 10,000-node step's garbage. What was read stays the
	// cache's.
	own := v.memo.rowBuffer(len(merged))
	for _, res := range merged {
		if !v.memo.ownsRow(r, f, res) {
			continue // someone else's row is never read; writeResult says so
		}
		own = append(own, res.Result)
		row := &own[len(own)-1]
		v.rows[row.Name] = row
		v.loaded[row.Name] = loadedRow{rv: res.ResourceVersion, row: &res.Result}
	}
	return nil
}

// resultObject is the result of a row in the fleet's current round.
func (r *Reconciler) resultObject(f *sbv1.SpiralBenchFleet, row *sbv1.FleetNode, rv string) (*sbv1.SpiralBenchNodeResult, error) {
	res := &sbv1.SpiralBenchNodeResult{
		ObjectMeta: metav1.ObjectMeta{
			Name: r.resultName(f, row.Name), Namespace: f.Namespace, ResourceVersion: rv,
			Labels: map[string]string{
				sbv1.LabelResultFleet: f.Name, sbv1.LabelResultRound: strconv.Itoa(int(f.Status.Round)),
				sbv1.LabelResultNode: fleet.NodeLabelValue(row.Name), sbv1.LabelResultVerdict: string(row.Verdict),
			},
		},
		Fleet: f.Name, Round: f.Status.Round, Result: *row.DeepCopy(),
	}
	if len(row.Reasons) > 0 {
		res.Labels[sbv1.LabelResultReason] = string(fleet.ParseReason(row.Reasons[0]).Code)
	}
	return res, controllerutil.SetControllerReference(f, res, r.Scheme())
}

// resultName is the node's result name in the fleet's round, with a tag only this manager can
// compute (no one can create it first).
func (r *Reconciler) resultName(f *sbv1.SpiralBenchFleet, node string) string {
	round := strconv.Itoa(int(f.Status.Round))
	return fleet.ResultName(f.Name, f.Status.Round, node, r.Provenance.Tag(f.Namespace, f.Name, string(f.UID), round, node))
}

// changedRows are the rows this step created or changed.
func (v *fleetView) changedRows() []*sbv1.FleetNode {
	var out []*sbv1.FleetNode
	for _, row := range v.sortedRows() {
		if l, ok := v.loaded[row.Name]; !ok || !sameRow(l.row, row) {
			out = append(out, row)
		}
	}
	return out
}

// sameRow compares two rows field by field: a step compares every row of the pool, and
// reflection (equality.Semantic) cost tens of milliseconds a step at 10,000 nodes.
func sameRow(a, b *sbv1.FleetNode) bool {
	return a.Name == b.Name && a.Verdict == b.Verdict && a.Step == b.Step && slices.Equal(a.Reasons, b.Reasons) &&
		a.Class == b.Class && sameTime(a.ValidUntil, b.ValidUntil) && a.Reason == b.Reason && a.Partner == b.Partner &&
		a.Bench == b.Bench && a.RunID == b.RunID && samePtr(a.Value, b.Value) &&
		samePtr(a.BaselineDeltaMilliPercent, b.BaselineDeltaMilliPercent) && samePtr(a.FleetDeltaMilliPercent, b.FleetDeltaMilliPercent) &&
		a.Straggler == b.Straggler && a.Regressed == b.Regressed && sameTime(a.LastBenchTime, b.LastBenchTime) && a.Upgrade == b.Upgrade &&
		a.StepsSummary == b.StepsSummary && slices.EqualFunc(a.Steps, b.Steps, sameStep)
}

func sameStep(a, b sbv1.FleetStepRecord) bool {
	return a.Name == b.Name && a.State == b.State && a.Reason == b.Reason && a.Figure == b.Figure && samePtr(a.Value, b.Value) &&
		a.Unit == b.Unit && a.JudgedAgainst == b.JudgedAgainst && a.Bench == b.Bench
}

func samePtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func sameTime(a, b *metav1.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(b))
}

// errStaleResult says a result changed since the step read it: the step's decisions may rest
// on an old row, so it creates nothing and runs again.
var errStaleResult = fmt.Errorf("a node result changed since it was read")

// writeResults creates or updates the results of the changed rows (an update carries the
// resourceVersion read, so a write over a newer row fails instead of losing it).
func (r *Reconciler) writeResults(ctx context.Context, f *sbv1.SpiralBenchFleet, v *fleetView, rows []*sbv1.FleetNode) error {
	return inParallel(rows, func(row *sbv1.FleetNode) error { return r.writeResult(ctx, f, row, v.loaded[row.Name].rv) })
}

func (r *Reconciler) writeResult(ctx context.Context, f *sbv1.SpiralBenchFleet, row *sbv1.FleetNode, rv string) error {
	res, err := r.resultObject(f, row, rv)
	if err != nil {
		return err
	}
	if err := benchstate.Mark(r.Provenance, res); err != nil {
		return err
	}
	if rv == "" {
		err = r.Create(ctx, res)
	} else {
		err = r.Update(ctx, res)
	}
	if apierrors.IsAlreadyExists(err) {
		err = r.overwriteForeignResult(ctx, f, res)
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		r.overlay.forget(res) // the next step reads the apiserver's version from the cache
		return errStaleResult
	}
	if err != nil {
		return err
	}
	r.overlay.put(res)
	return nil
}

// deleteOldResults removes the fleet's results of rounds before the last keptRounds.
func (r *Reconciler) deleteOldResults(ctx context.Context, f *sbv1.SpiralBenchFleet) error {
	if f.Status.Round <= keptRounds {
		return nil
	}
	var kept []string
	for i := int32(0); i < keptRounds; i++ {
		kept = append(kept, strconv.Itoa(int(f.Status.Round-i)))
	}
	notKept, err := labels.NewRequirement(sbv1.LabelResultRound, selection.NotIn, kept)
	if err != nil {
		return err
	}
	sel := labels.SelectorFromSet(labels.Set{sbv1.LabelResultFleet: f.Name}).Add(*notKept)
	r.overlay.forgetBefore(f.Namespace, f.Name, f.Status.Round-keptRounds+1)
	return client.IgnoreNotFound(r.DeleteAllOf(ctx, &sbv1.SpiralBenchNodeResult{}, client.InNamespace(f.Namespace),
		client.MatchingLabelsSelector{Selector: sel}))
}

// resultsSelector is the label selector of the fleet's current round's results.
func resultsSelector(f *sbv1.SpiralBenchFleet) string {
	return fmt.Sprintf("%s=%s,%s=%d", sbv1.LabelResultFleet, f.Name, sbv1.LabelResultRound, f.Status.Round)
}

// overwriteForeignResult handles a create that found a result under the node's name. The
// name carries a tag only this manager computes, so the object there is this manager's own
// row, changed by someone else since if its mark fails: it is written over (with a warning
// event) rather than read. A row with the mark is the manager's own that the cache has not
// shown yet: errStaleResult, and the next step reads it.
func (r *Reconciler) overwriteForeignResult(ctx context.Context, f *sbv1.SpiralBenchFleet, res *sbv1.SpiralBenchNodeResult) error {
	there := &sbv1.SpiralBenchNodeResult{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(res), there); err != nil {
		return client.IgnoreNotFound(err)
	}
	ferr := benchstate.Foreign(r.Provenance, there)
	if ferr == nil {
		return apierrors.NewAlreadyExists(sbv1.GroupVersion.WithResource("spiralbenchnoderesults").GroupResource(), res.Name)
	}
	r.event(f, true, provenance.ReasonForeignObject, "node %s's result was changed outside the operator; written again: %v", res.Result.Name, ferr)
	res.ResourceVersion = there.ResourceVersion
	return r.Update(ctx, res)
}
