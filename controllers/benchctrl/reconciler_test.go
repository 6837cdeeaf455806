package benchctrl

import (
	"context"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Controller unit tests run the reconciler against controller-runtime's fake client (an
// in-memory object store, named a fake because it is one: no admission, no kubelet). The
// tests play the kubelet's part with pkg/testing's status builders. test/integration runs the
// same reconciler against a real kube-apiserver.

const leaseNS = "spiralbench-system"

type harness struct {
	t  *testing.T
	c  client.Client
	r  *Reconciler
	sb client.ObjectKey
}

func newHarness(t *testing.T, sb *sbv1.SpiralBench, objs ...client.Object) *harness {
	t.Helper()
	scheme := sbtesting.Scheme(t)
	if sb.Spec.Run.Seconds == 0 {
		sb.Spec.Run.Seconds = 5
	}
	// The bench's namespace, as the apiserver would have it: the policy check reads its labels.
	if !slices.ContainsFunc(objs, func(o client.Object) bool { _, ns := o.(*corev1.Namespace); return ns && o.GetName() == sb.Namespace }) {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sb.Namespace}})
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&sbv1.SpiralBench{}).
		WithIndex(&sbv1.SpiralBench{}, WaitingIndex, WaitingValue).WithIndex(&corev1.Pod{}, podBenchIndex, indexPodBench).
		WithIndex(&sbv1.SpiralBenchAttemptResult{}, attempts.BenchIndex, attempts.IndexBench).WithObjects(append(objs, sb)...).Build()
	r := &Reconciler{Client: c, APIReader: c, Recorder: events.NewFakeRecorder(100),
		DefaultImage: "spiralbench/dataplane:test", LeaseNamespace: leaseNS, Provenance: provenance.RandomKey()}
	return &harness{t: t, c: c, r: r, sb: client.ObjectKeyFromObject(sb)}
}

// reconcile runs one Reconcile and returns the bench as stored afterwards.
func (h *harness) reconcile() *sbv1.SpiralBench {
	h.t.Helper()
	if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.sb}); err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	return h.bench()
}

func (h *harness) bench() *sbv1.SpiralBench {
	h.t.Helper()
	var sb sbv1.SpiralBench
	if err := h.c.Get(context.Background(), h.sb, &sb); err != nil {
		h.t.Fatal(err)
	}
	// with its attempts' repeats, as every reader of per-repeat detail sees it
	if err := attempts.Load(context.Background(), h.c, &sb, benchstate.OwnAttempt(h.r.Provenance, &sb)); err != nil {
		h.t.Fatal(err)
	}
	return &sb
}

// pods returns the bench's cell pods by role label.
func (h *harness) pods() map[string]*corev1.Pod {
	h.t.Helper()
	var list corev1.PodList
	if err := h.c.List(context.Background(), &list, client.MatchingLabels{cellpod.LabelBench: h.sb.Name}); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]*corev1.Pod{}
	for i := range list.Items {
		out[list.Items[i].Labels[cellpod.LabelRole]] = &list.Items[i]
	}
	return out
}

// setStatus writes a pod's status as the kubelet would.
func (h *harness) setStatus(p *corev1.Pod) {
	h.t.Helper()
	if err := h.c.Status().Update(context.Background(), p); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) leases() []coordinationv1.Lease {
	h.t.Helper()
	var list coordinationv1.LeaseList
	if err := h.c.List(context.Background(), &list, client.InNamespace(leaseNS)); err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}

// nodeFree says whether another bench may take node's lease now: there is none, or its holder
// has ended.
func (h *harness) nodeFree(node string) bool {
	h.t.Helper()
	other := sbtesting.MakeSpiralBench("probe", "lab").UID("probe").Obj()
	return h.r.leaseBusy(context.Background(), other, node) == nil
}

func argValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func cell0(sb *sbv1.SpiralBench) sbv1.CellResult {
	for _, c := range sb.Status.CellResults {
		if c.Index == 0 {
			return c
		}
	}
	return sbv1.CellResult{}
}
