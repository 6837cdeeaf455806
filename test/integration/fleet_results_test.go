package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/fleetctrl"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A node's row of a round is a SpiralBenchNodeResult: one per node, named after the fleet,
// round and node, owned by the fleet, labelled so `kubectl get sbnr -l spiralbench.io/verdict=X`
// works; a node that leaves the pool after its verdict has its result marked Left.
func TestFleetNodeResultsAreLabelledAndMarkedWhenANodeLeaves(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"fr1-a", "fr1-b", "fr1-c"} {
		poolNode(t, n, "results")
	}
	f := sbtesting.MakeFleet("results", ns, "results").MinRxMbps(900).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"fr1-c": 400}}
	done := k.runUntil(60*time.Second, "results", "round 1 finished", roundFinished(1))
	if done.Status.Results != "spiralbench.io/fleet=results,spiralbench.io/fleet-round=1" {
		t.Fatalf("status.results %q", done.Status.Results)
	}
	failed := listResults(t, ns, client.MatchingLabels{sbv1.LabelResultVerdict: "Failed"})
	if len(failed) != 1 || failed[0].Result.Name != "fr1-c" || !strings.HasPrefix(failed[0].Name, "results-1-fr1-c-") ||
		failed[0].Labels[sbv1.LabelResultReason] != "StepFailed" || failed[0].Labels[sbv1.LabelResultNode] != "fr1-c" {
		t.Fatalf("results labelled Failed: %+v", failed)
	}
	if ref := metav1.GetControllerOf(&failed[0]); ref == nil || ref.Kind != "SpiralBenchFleet" || ref.Name != "results" {
		t.Fatalf("the result is not owned by its fleet (garbage collection): %+v", failed[0].OwnerReferences)
	}
	if passed := listResults(t, ns, client.MatchingLabels{sbv1.LabelResultVerdict: "Passed"}); len(passed) != 2 {
		t.Fatalf("%d results labelled Passed, want 2", len(passed))
	}
	if f := done.Status.Failing; len(f) != 1 || f[0].Name != "fr1-c" || done.Status.Reasons["StepFailed"] != 1 {
		t.Fatalf("status.failing %+v reasons %v", f, done.Status.Reasons)
	}

	// fr1-b leaves the pool between rounds: its result says so, and the pool counts two nodes.
	gone := getNode(t, "fr1-b")
	gone.Labels["pool"] = "elsewhere"
	if err := k8sClient.Update(context.Background(), gone); err != nil {
		t.Fatal(err)
	}
	left := k.runUntil(30*time.Second, "results", "fr1-b marked Left", func(f *sbv1.SpiralBenchFleet) bool {
		return rowOf(f, "fr1-b").Verdict == sbv1.NodeLeft && f.Status.Counts.Nodes == 2
	})
	if r := rowOf(left, "fr1-b"); !strings.Contains(r.Reason, "left the pool after verdict Passed") {
		t.Fatalf("fr1-b row %+v", r)
	}
	if l := listResults(t, ns, client.MatchingLabels{sbv1.LabelResultVerdict: "Left"}); len(l) != 1 || l[0].Result.Name != "fr1-b" {
		t.Fatalf("results labelled Left: %+v", l)
	}
	// The next round has no row for it; round 1's rows stay, the node's history.
	requestRound(t, ns, "results", "2")
	k.mbps["fr1-c"] = 1000
	two := k.runUntil(60*time.Second, "results", "round 2 finished", roundFinished(2))
	if rows := rowsOf(two); len(rows) != 2 || rowOf(two, "fr1-b").Name != "" {
		t.Fatalf("round 2 rows %+v", rows)
	}
	if hist := listResults(t, ns, client.MatchingLabels{sbv1.LabelResultNode: "fr1-c"}); len(hist) != 2 {
		t.Fatalf("fr1-c has %d results, want its two rounds", len(hist))
	}
}

// Two fleet controllers on one fleet, each with its own cache and nothing shared but the
// apiserver: the running manager and a second one started mid-round and killed again, as a
// manager restarted while its predecessor's writes still land. Every node is benched once,
// has one result, and is decided; no two benches share a node.
func TestFleetResultsSurviveARacingSecondManager(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	var nodes []string
	for _, n := range []string{"fr2-a", "fr2-b", "fr2-c", "fr2-d", "fr2-e", "fr2-f", "fr2-g", "fr2-h"} {
		poolNode(t, n, "race")
		nodes = append(nodes, n)
	}
	f := sbtesting.MakeFleet("race", ns, "race").MaxParallel(3).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	k.runUntil(30*time.Second, "race", "the first benches", func(f *sbv1.SpiralBenchFleet) bool { return f.Status.Counts.Running > 0 })
	stop := secondFleetManager(t)
	k.runUntil(60*time.Second, "race", "half the nodes decided", func(f *sbv1.SpiralBenchFleet) bool { return f.Status.Counts.Passed >= 4 })
	stop() // killed mid-round
	done := k.runUntil(60*time.Second, "race", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != int32(len(nodes)) {
		t.Fatalf("counts %+v", done.Status.Counts)
	}
	benched := map[string]int{}
	for _, sb := range fleetBenches(t, ns, "race") {
		for _, n := range benchNodesOf(&sb) {
			benched[n]++
		}
	}
	for _, n := range nodes {
		if benched[n] != 1 {
			t.Errorf("node %s benched %d times", n, benched[n])
		}
		if r := listResults(t, ns, client.MatchingLabels{sbv1.LabelResultNode: n}); len(r) != 1 || r[0].Result.Verdict != sbv1.NodePassed {
			t.Errorf("node %s results %+v", n, r)
		}
	}
	if len(k.overlaps) > 0 || k.maxLiveBenches > 3 {
		t.Errorf("overlaps %v, %d benches at once (maxParallel 3)", k.overlaps, k.maxLiveBenches)
	}
}

// secondFleetManager starts another manager running only a fleet controller, with its own
// cache; the returned func stops it.
func secondFleetManager(t *testing.T) func() {
	t.Helper()
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sbv1.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&fleetctrl.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("second-fleet-controller"),
		Store: bucket.MinIO{}, NodeWrites: true, DefaultImage: "spiralbench/dataplane:test", Provenance: managerKey,
	}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	return func() { cancel(); <-done }
}

func listResults(t *testing.T, ns string, sel client.MatchingLabels) []sbv1.SpiralBenchNodeResult {
	t.Helper()
	var list sbv1.SpiralBenchNodeResultList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns), sel); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// The result's schema: printer columns for kubectl get, and a round that counts from 1.
func TestNodeResultSchema(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	bad := &sbv1.SpiralBenchNodeResult{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}, Fleet: "pool", Round: 0,
		Result: sbv1.FleetNode{Name: "n", Verdict: sbv1.NodePassed}}
	if err := k8sClient.Create(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "round counts from 1") {
		t.Fatalf("round 0: %v", err)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(context.Background(), client.ObjectKey{Name: "spiralbenchnoderesults.spiralbench.io"}, &crd); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, col := range crd.Spec.Versions[0].AdditionalPrinterColumns {
		cols = append(cols, col.Name)
	}
	if got := strings.Join(cols, ","); got != "Node,Fleet,Round,Verdict,Step,Steps,Reasons,Value,Bench,Reason,Age" {
		t.Fatalf("printer columns %s", got)
	}
	if crd.Spec.Names.ShortNames[0] != "sbnr" {
		t.Fatalf("short names %v", crd.Spec.Names.ShortNames)
	}
}
