package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

const (
	labelVerdict = "spiralbench.io/verdict"
	taintVerdict = "spiralbench.io/verdict"
)

// A fleet of the cluster's one real node (real kubelet, real data plane): a round whose rule
// cannot hold fails the node, labels and taints it; a round with a rule that holds passes it
// and lifts the taint. The stack installs the chart with fleet.nodeWrites=true.
func TestFleetOfTheRealNodeLabelsTaintsAndUntaintsIt(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	ctx := context.Background()
	pool := "spiralbench.io/e2e-pool"
	node := poolNode(t, pool, ns)

	w := sbtesting.MakeFleet("e2e", ns, "").Verdicts(true).MinRxMbps(100_000_000).
		Results(results())
	w.Spec.NodeSelector.MatchLabels = map[string]string{pool: ns}
	w.Spec.Template.Spec.Run.Seconds = 2
	w.Spec.Template.Spec.Run.WarmupSeconds = ptr.To[int32](1)
	w.Spec.Template.Spec.Results = results()
	f := w.Obj()
	if err := k8s.Create(ctx, f); err != nil {
		t.Fatal(err)
	}
	cur := waitForFleet(t, ns, "e2e", 4*time.Minute, "round 1 finished", func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Round == 1 && f.Status.RoundCompletionTime != nil
	})
	rows := fleetRows(t, cur)
	if len(rows) != 1 || rows[0].Verdict != sbv1.NodeFailed || !strings.Contains(rows[0].Reason, "rx-floor") {
		t.Fatalf("round 1 rows %+v", rows)
	}
	row := rows[0]
	n := getNode(t, node)
	if n.Labels[labelVerdict] != "Failed" || !tainted(n) {
		t.Fatalf("after a failed round: labels %v taints %v", n.Labels, n.Spec.Taints)
	}
	if row.Value == nil || *row.Value <= 0 || len(cur.Status.Failing) != 1 || cur.Status.Failing[0].Name != node {
		t.Fatalf("the real data plane's throughput should be in the row: %+v; failing %+v", row, cur.Status.Failing)
	}

	// The same node with a rule that holds: it passes and the taint goes.
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(f), f); err != nil {
		t.Fatal(err)
	}
	f.Spec.Template.Spec.Acceptance.Rules[0].Value = 100
	if f.Annotations == nil {
		f.Annotations = map[string]string{}
	}
	f.Annotations[sbv1.AnnotationRoundRequest] = "2"
	if err := k8s.Update(ctx, f); err != nil {
		t.Fatal(err)
	}
	cur = waitForFleet(t, ns, "e2e", 4*time.Minute, "round 2 finished", func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Round == 2 && f.Status.RoundCompletionTime != nil && f.Status.Summary != nil
	})
	if cur.Status.Counts.Passed != 1 || len(cur.Status.Failing) != 0 {
		t.Fatalf("round 2 counts %+v failing %+v", cur.Status.Counts, cur.Status.Failing)
	}
	n = getNode(t, node)
	if n.Labels[labelVerdict] != "Passed" || tainted(n) || !strings.HasPrefix(n.Annotations["spiralbench.io/verdict-run"], ns+"/e2e-r2-") {
		t.Fatalf("after a passing round: labels %v annotations %v taints %v", n.Labels, n.Annotations, n.Spec.Taints)
	}
	for _, uri := range cur.Status.Summary.URIs {
		key := strings.TrimPrefix(uri, "s3://"+results().Bucket+"/")
		if data := object(t, key); strings.HasSuffix(key, ".csv") && !strings.Contains(string(data), node+",Passed") {
			t.Fatalf("summary.csv: %s", data)
		}
	}
}

// fleetRows are the fleet's rows of its current round: its SpiralBenchNodeResults.
func fleetRows(t *testing.T, f *sbv1.SpiralBenchFleet) []sbv1.FleetNode {
	t.Helper()
	var list sbv1.SpiralBenchNodeResultList
	if err := k8s.List(context.Background(), &list, client.InNamespace(f.Namespace), client.MatchingLabels{
		sbv1.LabelResultFleet: f.Name, sbv1.LabelResultRound: strconv.Itoa(int(f.Status.Round))}); err != nil {
		t.Fatal(err)
	}
	var out []sbv1.FleetNode
	for _, r := range list.Items {
		out = append(out, r.Result)
	}
	return out
}

// poolNode puts the cluster's one real node in the pool (label pool=ns) and, when the test
// ends, takes it out again with every verdict label, annotation and taint a fleet wrote.
func poolNode(t *testing.T, pool, ns string) string {
	t.Helper()
	var nodes corev1.NodeList
	if err := k8s.List(context.Background(), &nodes); err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes: %v", err)
	}
	node := nodes.Items[0].Name
	editNode(t, node, func(n *corev1.Node) { n.Labels[pool] = ns })
	t.Cleanup(func() {
		editNode(t, node, func(n *corev1.Node) {
			delete(n.Labels, pool)
			for k := range n.Labels {
				if strings.HasPrefix(k, labelVerdict) {
					delete(n.Labels, k)
				}
			}
			for k := range n.Annotations {
				if strings.HasPrefix(k, labelVerdict) {
					delete(n.Annotations, k)
				}
			}
			var kept []corev1.Taint
			for _, tn := range n.Spec.Taints {
				if tn.Key != taintVerdict {
					kept = append(kept, tn)
				}
			}
			n.Spec.Taints = kept
		})
	})
	return node
}

func tainted(n *corev1.Node) bool {
	for _, tn := range n.Spec.Taints {
		if tn.Key == taintVerdict && tn.Value == "Failed" && tn.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

func getNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	return n
}

func editNode(t *testing.T, name string, edit func(*corev1.Node)) {
	t.Helper()
	for i := 0; i < 5; i++ {
		n := getNode(t, name)
		patch := client.MergeFromWithOptions(n.DeepCopy(), client.MergeFromWithOptimisticLock{})
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		edit(n)
		if err := k8s.Patch(context.Background(), n, patch); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("could not edit node %s", name)
}

func waitForFleet(t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*sbv1.SpiralBenchFleet) bool) *sbv1.SpiralBenchFleet {
	t.Helper()
	deadline := time.Now().Add(timeout)
	f := &sbv1.SpiralBenchFleet{}
	for {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, f)
		if err == nil && cond(f) {
			return f
		}
		if time.Now().After(deadline) {
			dump(t, ns)
			t.Fatalf("%s/%s: timed out after %s waiting for %s; status %+v", ns, name, timeout, what, f.Status)
		}
		time.Sleep(time.Second)
	}
}
