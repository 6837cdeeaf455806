package integration

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// fleetKubelet is the kubelet stand-in (kubeletStandIn, see kubelet_standin_test.go) for every
// bench of a fleet's namespace: each node has a speed, and a bench's pods report the slower
// of its nodes' speeds. It also watches for what must never happen: pods of two different
// benches alive on one node at the same time.
type fleetKubelet struct {
	t  *testing.T
	ns string
	// mbps per node; nodes not listed report 1000.
	mbps map[string]int64
	// overlaps seen: "node: benchA and benchB".
	overlaps []string
	// maxLiveBenches is the most benches seen with live pods at once.
	maxLiveBenches int
	// hold, when set, leaves the pods of the benches it names untouched (a bench that hangs).
	hold func(sb *sbv1.SpiralBench) bool
	// env, per node, is the data plane's environment capture ("env" of its summary) that a
	// bench on that node reports: the hardware facts a test injects.
	env map[string]string
}

func (k *fleetKubelet) speed(node string) int64 {
	if v, ok := k.mbps[node]; ok {
		return v
	}
	return 1000
}

// step advances the pods of every bench in the namespace once.
func (k *fleetKubelet) step() {
	ctx := context.Background()
	var benches sbv1.SpiralBenchList
	if err := k8sClient.List(ctx, &benches, client.InNamespace(k.ns)); err != nil {
		k.t.Fatal(err)
	}
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(k.ns)); err != nil {
		k.t.Fatal(err)
	}
	liveOn := map[string]string{}
	live := map[string]bool{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.Labels[cellpod.LabelBench] == "" {
			continue // ended, or not a cell pod (another workload's)
		}
		node := pinnedNode(&p)
		if node == "" {
			k.t.Fatalf("pod %s is pinned to no node", p.Name)
		}
		bench := p.Labels[cellpod.LabelBench]
		live[bench] = true
		if other, ok := liveOn[node]; ok && other != bench {
			k.overlaps = append(k.overlaps, fmt.Sprintf("%s: %s and %s", node, other, bench))
		}
		liveOn[node] = bench
	}
	if len(live) > k.maxLiveBenches {
		k.maxLiveBenches = len(live)
	}
	for i := range benches.Items {
		sb := &benches.Items[i]
		if k.hold != nil && k.hold(sb) {
			continue
		}
		mbps := int64(1 << 40)
		for _, n := range benchNodesOf(sb) {
			mbps = min(mbps, k.speed(n))
		}
		standIn := &kubeletStandIn{t: k.t, ns: k.ns, bench: sb.Name, rxMbps: func(int, int) int64 { return mbps }}
		if nodes := benchNodesOf(sb); len(nodes) == 1 && k.env[nodes[0]] != "" {
			env := k.env[nodes[0]]
			standIn.summary = func(_, _ int, role string) string {
				s := summaryJSON(role, "Valid", mbps)
				return strings.TrimSuffix(s, "}") + `,"env":` + env + "}"
			}
		}
		standIn.step()
	}
}

func benchNodesOf(sb *sbv1.SpiralBench) []string {
	t := sb.Spec.Topology
	var out []string
	for _, p := range []*sbv1.Placement{t.Placement, t.Server.Placement, t.Client.Placement} {
		if p != nil && p.NodeName != "" {
			out = append(out, p.NodeName)
		}
	}
	return out
}

// runUntil steps the stand-in until cond holds for the fleet.
func (k *fleetKubelet) runUntil(timeout time.Duration, name, what string, cond func(f *sbv1.SpiralBenchFleet) bool) *sbv1.SpiralBenchFleet {
	k.t.Helper()
	f := &sbv1.SpiralBenchFleet{}
	eventually(k.t, timeout, what, func() (bool, string) {
		k.step()
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, f); err != nil {
			return false, err.Error()
		}
		return cond(f), fmt.Sprintf("phase %s round %d progress %s counts %+v rows %+v conditions %+v",
			f.Status.Phase, f.Status.Round, f.Status.Progress, f.Status.Counts, rowsOf(f), f.Status.Conditions)
	})
	return f
}

func roundFinished(round int32) func(f *sbv1.SpiralBenchFleet) bool {
	return func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Round == round && f.Status.RoundCompletionTime != nil && f.Status.Phase == sbv1.FleetIdle
	}
}

// poolNode creates a Ready node in pool `pool` (no taints; fleet benches pin by nodeName).
func poolNode(t *testing.T, name, pool string) *corev1.Node {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool}}}
	if err := k8sClient.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
	node.Status.NodeInfo.KernelVersion = "6.11.0-test"
	if err := k8sClient.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	// TaintNodesByCondition admission tainted it not-ready; envtest has no node lifecycle controller to lift it.
	var taints []corev1.Taint
	for _, tn := range node.Spec.Taints {
		if tn.Key != corev1.TaintNodeNotReady {
			taints = append(taints, tn)
		}
	}
	node.Spec.Taints = taints
	if err := k8sClient.Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), node) })
	return node
}

// gpuPod runs another workload's pod holding a GPU on the node (Running, as a kubelet would say).
func gpuPod(t *testing.T, ns, name, node string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "train", Image: "trainer",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}}}}},
	}
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	if err := k8sClient.Status().Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func getNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n := &corev1.Node{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	return n
}

func taintValue(n *corev1.Node, key string) (string, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}

func rowOf(f *sbv1.SpiralBenchFleet, node string) sbv1.FleetNode {
	for _, r := range rowsOf(f) {
		if r.Name == node {
			return r
		}
	}
	return sbv1.FleetNode{}
}

// rowsOf are the fleet's rows of its current round: its SpiralBenchNodeResults, by node name.
func rowsOf(f *sbv1.SpiralBenchFleet) []sbv1.FleetNode {
	var list sbv1.SpiralBenchNodeResultList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(f.Namespace), client.MatchingLabels{
		sbv1.LabelResultFleet: f.Name, sbv1.LabelResultRound: strconv.Itoa(int(f.Status.Round))}); err != nil {
		panic(err)
	}
	out := make([]sbv1.FleetNode, 0, len(list.Items))
	for _, r := range list.Items {
		out = append(out, r.Result)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// fleetBenches lists the benches a fleet owns.
func fleetBenches(t *testing.T, ns, fleet string) []sbv1.SpiralBench {
	t.Helper()
	var list sbv1.SpiralBenchList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"spiralbench.io/fleet": fleet}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func requestRound(t *testing.T, ns, name, token string) {
	t.Helper()
	f := &sbv1.SpiralBenchFleet{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, f); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(f.DeepCopy())
	if f.Annotations == nil {
		f.Annotations = map[string]string{}
	}
	f.Annotations[sbv1.AnnotationRoundRequest] = token
	if err := k8sClient.Patch(context.Background(), f, patch); err != nil {
		t.Fatal(err)
	}
}

// pinnedNode is the node a cell pod is pinned to: envtest has no scheduler, so the pod keeps
// the required node affinity (metadata.name In [node]) the operator gives it.
func pinnedNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

// setUpgradeState sets a node's GPU driver upgrade state label, as NVIDIA's upgrade controller
// does, for the fleet's upgrade gate.
func setUpgradeState(t *testing.T, node, state string) {
	t.Helper()
	n := getNode(t, node)
	n.Labels["nvidia.com/gpu-driver-upgrade-state"] = state
	if err := k8sClient.Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

// waitGateTaint steps the stand-in kubelet (and each also, e.g. passing check pods) until the
// node's upgrade-gate taint has the value want ("": no taint).
func (k *fleetKubelet) waitGateTaint(timeout time.Duration, node, want string, also ...func()) {
	k.t.Helper()
	eventually(k.t, timeout, node+" gate taint "+want, func() (bool, string) {
		k.step()
		for _, f := range also {
			f()
		}
		v, ok := taintValue(getNode(k.t, node), "spiralbench.io/upgrade-gate")
		if want == "" {
			return !ok, v
		}
		return ok && v == want, v
	})
}
