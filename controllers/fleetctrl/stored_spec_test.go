package fleetctrl

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The fleet's benches of one step are marked over the spec the apiserver stores (its defaults
// included) with one dry run for the step's shape, not one per bench: every bench created
// carries a mark that holds over what was stored, on its own node; another shape (a pair of
// nodes) and an answer older than storedSpecFor ask again.
func TestOneDryRunMarksEveryBenchOfAShape(t *testing.T) {
	dryRuns := 0
	// The fake apiserver's default: a warm-up the template left out (the real one applies the
	// CRD's defaults on dry runs and creates alike).
	withDefault := func(o client.Object) {
		if sb, ok := o.(*sbv1.SpiralBench); ok && sb.Spec.Run.WarmupSeconds == nil {
			sb.Spec.Run.WarmupSeconds = ptr.To[int32](7)
		}
	}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			withDefault(o)
			co := (&client.CreateOptions{}).ApplyOptions(opts)
			if len(co.DryRun) > 0 {
				dryRuns++
				return nil
			}
			return c.Create(ctx, o, opts...)
		},
	}).Build()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := &Reconciler{Client: c, APIReader: c, Provenance: provenance.RandomKey(), Now: func() time.Time { return now }}
	f := sbtesting.MakeFleet("f", "lab", "pool").Obj()
	f.UID, f.Status.Round = "f1", 1
	f.Spec.Template.Spec.Run.WarmupSeconds = nil
	v := &fleetView{f: f, pool: map[string]*corev1.Node{}, rows: map[string]*sbv1.FleetNode{}, busyNodes: map[string]bool{}}
	nodes := []string{"a", "b", "c", "d", "e"}
	for _, n := range nodes {
		v.pool[n], v.rows[n] = sbtesting.ReadyNode(n), &sbv1.FleetNode{Name: n}
	}
	step := fleet.Steps(&f.Spec)[0]
	create := func(nodes ...string) *sbv1.SpiralBench {
		t.Helper()
		v.toCreate = nil
		subject := nodes[0]
		if len(nodes) == 2 {
			subject = pairSubject(nodes[0], nodes[1])
		}
		if err := r.createBench(context.Background(), v, fleet.KindRound, "1", subject, nodes, step); err != nil {
			t.Fatal(err)
		}
		if err := r.createMarked(context.Background(), f, v.toCreate[0]); err != nil {
			t.Fatal(err)
		}
		stored := &sbv1.SpiralBench{}
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(v.toCreate[0]), stored); err != nil {
			t.Fatal(err)
		}
		if !benchstate.Trusted(r.Provenance, stored) {
			t.Fatalf("the fleet's own bench on %v is not trusted as stored", nodes)
		}
		return stored
	}

	for _, n := range nodes[:3] {
		if got := create(n).Spec.Topology.Placement.NodeName; got != n {
			t.Fatalf("bench for %s placed on %s", n, got)
		}
	}
	if dryRuns != 1 {
		t.Fatalf("%d dry runs for three benches of one shape, want 1", dryRuns)
	}
	pair := create("d", "e")
	if dryRuns != 2 || pair.Spec.Topology.Client.Placement.NodeName != "e" {
		t.Fatalf("a pair: %d dry runs (want 2), client on %q", dryRuns, pair.Spec.Topology.Client.Placement.NodeName)
	}
	now = now.Add(storedSpecFor + time.Second)
	create("a", "c")
	if dryRuns != 3 {
		t.Fatalf("after %s the shape's answer served on: %d dry runs, want 3", storedSpecFor, dryRuns)
	}
}
