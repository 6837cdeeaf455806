package fleetctrl

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/incache"
)

// view reads the pool and the owned benches from the cache. Lists skip the cache's deep copy:
// the step only reads these objects.
func (r *Reconciler) view(ctx context.Context, f *sbv1.SpiralBenchFleet) (*fleetView, error) {
	v := &fleetView{f: f, metric: string(fleet.HeadlineMetric(&f.Spec)), steps: fleet.Steps(&f.Spec), memo: r.reads.of(f)}
	v.memo.sweep()
	v.memo.maps.begin(v)
	r.foreign.of(f, v.foreign)
	sel, err := poolSelector(f)
	if err != nil {
		return nil, err
	}
	nodes, err := r.poolNodesNow(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n.DeletionTimestamp == nil {
			v.pool[n.Name] = n
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
	benches, err := r.fleetBenches(ctx, f)
	if err != nil {
		return nil, err
	}
	for _, sb := range benches {
		b := v.memo.bench(r, f, sb)
		if !b.own {
			continue // not the fleet's, whatever its labels say
		}
		if !b.upgrade && b.round != f.Status.Round {
			if !b.finished {
				v.claim(b.nodes...)
			}
			continue // an earlier round's bench decides nothing now
		}
		v.benches[b.key] = sb
		if !b.finished {
			v.claim(b.nodes...)
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
func (r *Reconciler) viewChecks(ctx context.Context, v *fleetView) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(v.f.Namespace), client.MatchingLabels{sbv1.LabelFleet: v.f.Name}, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		kind := p.Labels[sbv1.LabelFleetKind]
		round, _ := strconv.Atoi(p.Labels[sbv1.LabelFleetRound])
		if !benchstate.Trusted(r.Provenance, p) || kind == fleet.KindFacts {
			continue // as for benches; facts pods are read by readFacts
		}
		if !metav1.IsControlledBy(p, v.f) || (kind != fleet.KindUpgrade && int32(round) != v.f.Status.Round) {
			if metav1.IsControlledBy(p, v.f) && !fleet.CheckDone(p) {
				v.claim(p.Spec.NodeName)
			}
			continue
		}
		v.checks[fleetObjectKey(p)] = p
		if !fleet.CheckDone(p) {
			v.claim(p.Spec.NodeName)
		}
	}
	return nil
}

// poolNodesNow are the nodes sel selects, read in place from the cache (pkg/incache).
func (r *Reconciler) poolNodesNow(ctx context.Context, sel labels.Selector) ([]*corev1.Node, error) {
	return incache.Objects(ctx, r.cache, r.Client, &corev1.Node{}, &corev1.NodeList{}, "", func(n *corev1.Node) bool { return sel.Matches(labels.Set(n.Labels)) })
}

// fleetBenches are the benches labelled with f's name in its namespace, read in place.
func (r *Reconciler) fleetBenches(ctx context.Context, f *sbv1.SpiralBenchFleet) ([]*sbv1.SpiralBench, error) {
	return incache.Objects(ctx, r.cache, r.Client, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, f.Namespace, func(sb *sbv1.SpiralBench) bool {
		return sb.Labels[sbv1.LabelFleet] == f.Name
	})
}
