package benchctrl

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// queueScaling is the QueueScaling sample's bench: one loopback pod holding both ConnectX
// ports and 4 GiB of 2 MiB huge pages.
func queueScaling(name string) *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench(name, "lab").UID(name).Transport(sbv1.TransportRawEthernet).Preset(sbv1.PresetQueueScaling).Obj()
	sb.Spec.Topology.Server.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p1", Count: 1}}
	sb.Spec.Topology.Server.Hugepages = &sbv1.HugepagesSpec{PageSize: "2Mi", Mebibytes: 4096}
	sb.Spec.Topology.Client.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p0", Count: 1}}
	return sb
}

// offering is a Ready node whose allocatable holds these resources, e.g. "nvidia.com/gpu", "1".
func offering(name string, resources ...string) *corev1.Node {
	n := sbtesting.ReadyNode(name)
	n.Status.Allocatable = corev1.ResourceList{}
	for i := 0; i+1 < len(resources); i += 2 {
		n.Status.Allocatable[corev1.ResourceName(resources[i])] = resource.MustParse(resources[i+1])
	}
	return n
}

// setAllocatable changes a node's allocatable as its kubelet would (a device plugin come or gone).
func (h *harness) setAllocatable(n *corev1.Node, resources ...string) {
	h.t.Helper()
	if err := h.c.Get(context.Background(), client.ObjectKeyFromObject(n), n); err != nil {
		h.t.Fatal(err)
	}
	n.Status.Allocatable = offering(n.Name, resources...).Status.Allocatable
	if err := h.c.Status().Update(context.Background(), n); err != nil {
		h.t.Fatal(err)
	}
}

// starve marks a pod as the scheduler marks one it has no room for, since `ago`.
func (h *harness) starve(p *corev1.Pod, resource string, ago time.Duration) {
	h.t.Helper()
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(time.Now().Add(-ago)),
		Message: "0/1 nodes are available: 1 Insufficient " + resource + ". preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}
	h.setStatus(p)
}

// reconcileFor runs one Reconcile and returns when it asked to be woken again.
func (h *harness) reconcileFor() time.Duration {
	h.t.Helper()
	res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.sb})
	if err != nil {
		h.t.Fatal(err)
	}
	return res.RequeueAfter
}

// The QueueScaling sample on a cluster without the ConnectX port it asks for: the bench does not
// start, says which resource no node offers and who asks for it, holds no node, and looks again
// in a minute; once the node offers it, it runs.
func TestABenchNoNodeCanRunWaitsUnschedulableWithoutANode(t *testing.T) {
	sb := queueScaling("qs")
	node := offering("spark-a", "nvidia.com/cx7_p1", "1", "hugepages-2Mi", "8Gi")
	h := newHarness(t, sb, node)

	if wait := h.reconcileFor(); wait != time.Minute {
		t.Errorf("an Unschedulable bench looks again in a minute, asked %v", wait)
	}
	got := h.bench()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning)
	want := "Unschedulable: no node offers nvidia.com/cx7_p0 (the bench's loopback pod asks for 1)"
	if got.Status.Phase != sbv1.PhaseQueued || c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonUnschedulable ||
		!strings.HasPrefix(c.Message, want) {
		t.Fatalf("want Queued, Running=False %s %q..., got %s %+v", ReasonUnschedulable, want, got.Status.Phase, c)
	}
	if pods, leases := h.pods(), h.leases(); len(pods) != 0 || len(leases) != 0 || len(got.Status.Nodes) != 0 {
		t.Errorf("no pod and no node while no node can run it: pods %v, leases %d, nodes %v", keys(pods), len(leases), got.Status.Nodes)
	}
	if ev := h.events(); !strings.Contains(ev, "Warning Unschedulable") || !strings.Contains(ev, want) {
		t.Errorf("a Warning event says so: %s", ev)
	}
	h.reconcile()
	if ev := h.events(); strings.Contains(ev, "Unschedulable") {
		t.Errorf("said once, not at every look: %s", ev)
	}

	// Short of huge pages: the quantity it asks and the most a node has are named.
	h.setAllocatable(node, "nvidia.com/cx7_p0", "1", "nvidia.com/cx7_p1", "1", "hugepages-2Mi", "1Gi")
	got = h.reconcile()
	if c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning); !strings.Contains(c.Message,
		"no node offers 4Gi of hugepages-2Mi (the bench's loopback pod asks for 4Gi; at most 1Gi, on spark-a)") {
		t.Errorf("huge pages short: %q", c.Message)
	}

	h.setAllocatable(node, "nvidia.com/cx7_p0", "1", "nvidia.com/cx7_p1", "1", "hugepages-2Mi", "8Gi")
	got = h.reconcile()
	if got.Status.Phase != sbv1.PhaseRunning || len(h.pods()) != 1 || len(got.Status.Nodes) != 1 {
		t.Errorf("once the node offers it all the bench runs: %s, pods %v, nodes %v", got.Status.Phase, keys(h.pods()), got.Status.Nodes)
	}
}

// A bench is leased the node that offers its devices, not the first by name.
func TestTheNodeChosenOffersWhatThePodsAsk(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gpu", "lab").UID("g1").ServerGPUs(2).Obj()
	h := newHarness(t, sb, offering("spark-a", "nvidia.com/gpu", "1"), offering("spark-b", "nvidia.com/gpu", "2"))
	if got := h.reconcile(); len(got.Status.Nodes) != 1 || got.Status.Nodes[0] != "spark-b" {
		t.Errorf("want spark-b, the node with 2 GPUs, got %v (%s)", got.Status.Nodes, got.Status.Phase)
	}
}

// A node named by the placement that lacks the device is named in the message.
func TestANamedNodeWithoutTheDeviceIsNamed(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("named", "lab").UID("n1").NodeName("spark-a").
		Devices(sbv1.DeviceResource{ResourceName: "rdma/rdma_shared_device_a", Count: 1}).Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	got := h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning)
	want := "Unschedulable: node spark-a does not offer rdma/rdma_shared_device_a (the bench's server and client pods ask for 2 together)"
	if c == nil || c.Reason != ReasonUnschedulable || !strings.HasPrefix(c.Message, want) {
		t.Errorf("want %q..., got %+v", want, c)
	}
}

// An older bench no node can run holds no newer bench back from a node it could never use.
func TestAnUnschedulableBenchHoldsNoNodeBack(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	older := queueScaling("older")
	older.CreationTimestamp = metav1.NewTime(t0)
	older.Status.Phase = sbv1.PhaseQueued
	newer := sbtesting.MakeSpiralBench("newer", "lab").UID("newer").Obj()
	newer.CreationTimestamp = metav1.NewTime(t0.Add(time.Second))
	h := newHarness(t, newer, older, sbtesting.ReadyNode("spark-a"))
	if got := h.reconcile(); got.Status.Phase != sbv1.PhaseRunning {
		c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning)
		t.Errorf("the newer bench runs on the node the older cannot use: %s %+v", got.Status.Phase, c)
	}
}

// A pod the scheduler cannot place because its leased node no longer offers its GPU (the device
// plugin went) ends its attempt at once with the scheduler's words; the bench then gives the
// node back and waits Unschedulable instead of retrying on it.
func TestAPodItsNodeCannotHostEndsItsAttemptAtOnce(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gpu", "lab").UID("g1").ServerGPUs(1).Obj()
	sb.Spec.Run.RetriesPerCell = ptr.To[int32](1)
	node := offering("spark-a", "nvidia.com/gpu", "1")
	h := newHarness(t, sb, node)
	h.reconcile()
	server := h.pods()[cellpod.RoleServer]
	if server == nil {
		t.Fatal("no server pod")
	}
	h.setAllocatable(node)
	h.starve(server, "nvidia.com/gpu", 0)

	got := h.reconcile()
	res := cell0(got)
	want := "retrying: the server pod cannot be scheduled: node spark-a does not offer nvidia.com/gpu (the bench's server pod asks for 1); the scheduler: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
	if got.Status.ActiveAttempt != nil || res.FailedAttempts != 1 || !strings.HasPrefix(res.Message, want) {
		t.Fatalf("the attempt ends at once: active %+v, failed attempts %d, message %q", got.Status.ActiveAttempt, res.FailedAttempts, res.Message)
	}
	got = h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning)
	if got.Status.Phase != sbv1.PhaseQueued || c.Reason != ReasonUnschedulable || len(got.Status.Nodes) != 0 || !h.nodeFree("spark-a") ||
		!strings.HasPrefix(c.Message, "Unschedulable: no node offers nvidia.com/gpu (the bench's server pod asks for 1)") {
		t.Errorf("the bench gives the node back and waits: %s %+v, nodes %v", got.Status.Phase, c, got.Status.Nodes)
	}
	if pods := h.pods(); len(pods) != 0 {
		t.Errorf("no new attempt on a node that cannot host it: %v", keys(pods))
	}
}

// A pod short of a resource its node does offer (the previous attempt's pods still hold it, or
// another workload does) gets a grace before its attempt ends, far short of the deadline.
func TestAPodWaitingForResourcesItsNodeOffersEndsAfterAGrace(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gpu", "lab").UID("g1").ServerGPUs(1).Obj()
	sb.Spec.Run.RetriesPerCell = ptr.To[int32](1)
	h := newHarness(t, sb, offering("spark-a", "nvidia.com/gpu", "1"))
	h.reconcile()
	server := h.pods()[cellpod.RoleServer]
	h.starve(server, "nvidia.com/gpu", 0)
	if wait := h.reconcileFor(); wait > unschedulableGrace || wait < unschedulableGrace-5*time.Second {
		t.Errorf("look again when the grace ends, asked %v", wait)
	}
	if got := h.bench(); got.Status.ActiveAttempt == nil {
		t.Fatal("a pod short for a moment keeps its attempt")
	}

	h.starve(h.pods()[cellpod.RoleServer], "nvidia.com/gpu", unschedulableGrace+time.Second)
	got := h.reconcile()
	res := cell0(got)
	want := "retrying: the server pod cannot be scheduled (for 30s): 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
	if res.FailedAttempts != 1 || !strings.HasPrefix(res.Message, want) {
		t.Fatalf("the attempt ends after the grace: failed attempts %d, message %q", res.FailedAttempts, res.Message)
	}
	if got = h.reconcile(); got.Status.Phase != sbv1.PhaseRunning || len(got.Status.Nodes) != 1 {
		t.Errorf("the node offers the GPU: the bench keeps it and retries, got %s, nodes %v", got.Status.Phase, got.Status.Nodes)
	}
}

// A bench whose node lost its GPU between attempts gives it back and takes a node that offers
// one, as after a suspension.
func TestABenchWhoseNodeLostItsGPUMovesToOneThatOffersIt(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gpu", "lab").UID("g1").ServerGPUs(1).Payloads(1000, 2000).Obj()
	sb.Spec.Run.Repeats = 1
	a, b := offering("spark-a", "nvidia.com/gpu", "1"), offering("spark-b", "nvidia.com/gpu", "1")
	h := newHarness(t, sb, a, b)
	h.reconcile()
	server := h.pods()[cellpod.RoleServer]
	h.setStatus(sbtesting.WrapPod(server).Running("10.0.0.5").Obj())
	h.reconcile()
	pods := h.pods()
	h.setStatus(sbtesting.WrapPod(pods[cellpod.RoleClient]).Succeeded(sbtesting.MakeSummary("client").TXMbps(9100).JSON()).Obj())
	h.setStatus(sbtesting.WrapPod(pods[cellpod.RoleServer]).Succeeded(sbtesting.MakeSummary("server").RXMbps(9000).JSON()).Obj())
	h.setAllocatable(a)
	got := h.reconcile()
	if c := got.Status.Cells; c.Succeeded+c.Invalid != 1 {
		t.Fatalf("cell 0 measured on spark-a first: %+v", c)
	}
	got = h.reconcile()
	if got.Status.Phase != sbv1.PhaseRunning || len(got.Status.Nodes) != 1 || got.Status.Nodes[0] != "spark-b" || !h.nodeFree("spark-a") {
		t.Errorf("cell 1 runs on spark-b, spark-a given back: %s, nodes %v", got.Status.Phase, got.Status.Nodes)
	}
}

// A fleet's bench on a node without the device its template asks for fails at once, so the
// node gets a verdict instead of holding the fleet's round.
func TestAFleetsBenchOnANodeWithoutTheDeviceFails(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("fleet-node-a", "lab").UID("f1").NodeName("spark-a").ServerGPUs(1).Obj()
	sb.OwnerReferences = []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet",
		Name: "pool", UID: "pool", Controller: ptr.To(true)}}
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	got := h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionFailed)
	if got.Status.Phase != sbv1.PhaseFailed || c == nil || c.Reason != ReasonUnschedulable ||
		!strings.HasPrefix(c.Message, "Unschedulable: node spark-a does not offer nvidia.com/gpu (the bench's server pod asks for 1)") {
		t.Errorf("want Failed, Failed=True %s, got %s %+v", ReasonUnschedulable, got.Status.Phase, c)
	}
	if len(h.pods()) != 0 || len(h.leases()) != 0 {
		t.Errorf("no pod, no lease: %v, %d", keys(h.pods()), len(h.leases()))
	}
}
