package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// setAllocatable sets a node's allocatable, as its kubelet does when a device plugin registers
// or goes away.
func setAllocatable(t *testing.T, name string, allocatable corev1.ResourceList) {
	t.Helper()
	node := &corev1.Node{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Name: name}, node); err != nil {
		t.Fatal(err)
	}
	node.Status.Allocatable = allocatable
	if err := k8sClient.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
}

// waitUnschedulable waits for the bench to wait Unschedulable, holding no node, with a message
// containing want.
func waitUnschedulable(t *testing.T, sb *sbv1.SpiralBench, node, want string) {
	t.Helper()
	eventually(t, 20*time.Second, sb.Name+" Unschedulable", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionRunning)
		_, held := leaseHolder(node)
		return cur.Status.Phase == sbv1.PhaseQueued && c != nil && c.Reason == benchctrl.ReasonUnschedulable &&
				strings.Contains(c.Message, want) && len(cur.Status.Nodes) == 0 && !held,
			fmt.Sprintf("phase %s, nodes %v, lease held %v, %+v", cur.Status.Phase, cur.Status.Nodes, held, c)
	})
}

// A bench asking for a ConnectX port no node offers does not start: it waits Unschedulable,
// saying which resource and who asks, with no pod and no node lease. Once the node offers it,
// it runs; when the port goes again mid-bench and the scheduler marks the pod Unschedulable
// (envtest has no scheduler: the test writes the condition as kube-scheduler would), the attempt
// ends at once with the scheduler's words, not at its deadline, and the bench gives the node back.
func TestABenchNoNodeOffersWaitsUnschedulable(t *testing.T) {
	requireEnv(t)
	ctx := context.Background()
	ns := newNamespace(t)
	const node = "cx7-node"
	p1 := corev1.ResourceList{"nvidia.com/cx7_p1": resource.MustParse("1")}
	both := corev1.ResourceList{"nvidia.com/cx7_p0": resource.MustParse("1"), "nvidia.com/cx7_p1": resource.MustParse("1")}
	testNodeOffering(t, node, p1)
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("cx7", ns).Payloads(8000).Pairs(1), 1, 1).Obj(), node)
	sb.Spec.Run.CellDeadlineSeconds = ptr.To[int32](300) // far beyond this test: only an early end passes it
	sb.Spec.Topology.Server.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p1", Count: 1}}
	sb.Spec.Topology.Client.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p0", Count: 1}}
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	waitUnschedulable(t, sb, node, "Unschedulable: no node offers nvidia.com/cx7_p0 (the bench's client pod asks for 1)")
	if pods := podsOf(t, ns, "cx7"); len(pods) != 0 {
		t.Errorf("no pod while no node can run it, got %d", len(pods))
	}
	if notes := warningNotes(t, ns, "cx7"); !strings.Contains(notes, "Unschedulable: Unschedulable: no node offers nvidia.com/cx7_p0") {
		t.Errorf("a Warning event says so, got %q", notes)
	}

	// The device plugin registers; no Node event wakes a bench (it looks every minute), an edit does.
	setAllocatable(t, node, both)
	cur := &sbv1.SpiralBench{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), cur); err != nil {
		t.Fatal(err)
	}
	cur.Annotations = map[string]string{"example.com/look-again": "1"}
	if err := k8sClient.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	var server corev1.Pod
	eventually(t, 20*time.Second, "the server pod once the node offers both ports", func() (bool, string) {
		var names []string
		for _, p := range podsOf(t, ns, "cx7") { // the client may be there too (the rendezvous)
			if p.Labels[cellpod.LabelRole] == cellpod.RoleServer {
				server = p
				return true, ""
			}
			names = append(names, p.Name)
		}
		return false, fmt.Sprintf("pods %v", names)
	})
	if holder, held := leaseHolder(node); !held || !strings.Contains(holder, "/cx7/") {
		t.Errorf("the running bench holds %s, lease %q", node, holder)
	}

	// The server's port goes; the scheduler has no room for the pod.
	setAllocatable(t, node, corev1.ResourceList{"nvidia.com/cx7_p0": resource.MustParse("1")})
	started := time.Now()
	server.Status.Phase = corev1.PodPending
	server.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now(),
		Message: "0/1 nodes are available: 1 Insufficient nvidia.com/cx7_p1. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}
	if err := k8sClient.Status().Update(ctx, &server); err != nil {
		t.Fatal(err)
	}
	waitUnschedulable(t, sb, node, "Unschedulable: no node offers nvidia.com/cx7_p1 (the bench's server pod asks for 1)")
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), cur); err != nil {
		t.Fatal(err)
	}
	want := "retrying: the server pod cannot be scheduled: node " + node + " does not offer nvidia.com/cx7_p1 (the bench's server pod asks for 1); " +
		"the scheduler: 0/1 nodes are available: 1 Insufficient nvidia.com/cx7_p1."
	if len(cur.Status.CellResults) != 1 || cur.Status.CellResults[0].FailedAttempts != 1 || !strings.HasPrefix(cur.Status.CellResults[0].Message, want) {
		t.Errorf("the attempt ended with the scheduler's words, want %q, got %+v", want, cur.Status.CellResults)
	}
	if took := time.Since(started); took > 15*time.Second {
		t.Errorf("the attempt ended %v after the pod was marked, not at once", took)
	}
	if pods := podsOf(t, ns, "cx7"); len(pods) != 0 {
		t.Errorf("no new attempt on a node that cannot host it, got %d pods", len(pods))
	}
}
