package benchctrl

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/policy"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// refusedBefore fails unless the bench is Failed for reason with no pod and no lease left, and
// a Warning event says the same.
func (h *harness) refusedBefore(got *sbv1.SpiralBench, reason string) string {
	h.t.Helper()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionFailed)
	if got.Status.Phase != sbv1.PhaseFailed || c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason {
		h.t.Fatalf("want Failed for %s, got phase %s condition %+v", reason, got.Status.Phase, c)
	}
	if len(h.pods()) != 0 || len(h.leases()) != 0 {
		h.t.Errorf("refused before any pod or lease: pods %v, leases %d", keys(h.pods()), len(h.leases()))
	}
	if !strings.Contains(h.events(), "Warning "+reason+" ") {
		h.t.Errorf("no Warning %s event: %s", reason, h.events())
	}
	return c.Message
}

// events drains the fake recorder.
func (h *harness) events() string {
	var out []string
	for ch := h.r.Recorder.(*events.FakeRecorder).Events; len(ch) > 0; {
		out = append(out, <-ch)
	}
	return strings.Join(out, "\n")
}

func TestAnImageOffTheListIsRefusedBeforeAnyPod(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("img", "lab").UID("i1").Obj()
	sb.Spec.Image = "evil.example.com/miner:1"
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.r.AllowedImages, _ = policy.NewImages("registry.example.com/bench/")
	msg := h.refusedBefore(h.reconcile(), policy.ReasonImageNotAllowed)
	if !strings.Contains(msg, "evil.example.com/miner:1") || !strings.Contains(msg, "dataplane.allowedImages") {
		t.Errorf("says which image and which list: %s", msg)
	}
	if got := h.reconcile(); got.Status.Phase != sbv1.PhaseFailed || len(h.pods()) != 0 {
		t.Errorf("stays refused: %s", got.Status.Phase)
	}

	ok := sbtesting.MakeSpiralBench("listed", "lab").UID("i2").Obj()
	ok.Spec.Image = "registry.example.com/bench/dataplane:v2"
	h2 := newHarness(t, ok, sbtesting.ReadyNode("spark-a"))
	h2.r.AllowedImages = h.r.AllowedImages
	if h2.reconcile(); len(h2.pods()) != 1 {
		t.Errorf("a listed image runs: pods %v", keys(h2.pods()))
	}
}

func TestPrivilegedBenchesRunOnlyInAllowedNamespaces(t *testing.T) {
	priv := func() *sbv1.SpiralBench {
		sb := sbtesting.MakeSpiralBench("priv", "lab").UID("p1").Obj()
		sb.Spec.Topology.Server.Privileged = true
		return sb
	}
	h := newHarness(t, priv(), sbtesting.ReadyNode("spark-a"))
	msg := h.refusedBefore(h.reconcile(), policy.ReasonPrivilegedNotAllowed)
	if !strings.Contains(msg, "topology.server.privileged") || !strings.Contains(msg, "spiralbench.io/privileged=true") {
		t.Errorf("says which field and which label: %s", msg)
	}

	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab", Labels: map[string]string{policy.LabelPrivileged: "true"}}}
	h = newHarness(t, priv(), sbtesting.ReadyNode("spark-a"), labelled)
	if h.reconcile(); len(h.pods()) != 1 {
		t.Errorf("a labelled namespace runs it: pods %v", keys(h.pods()))
	}
	h = newHarness(t, priv(), sbtesting.ReadyNode("spark-a"))
	h.r.PrivilegedNamespaces = []string{"lab"}
	if h.reconcile(); len(h.pods()) != 1 {
		t.Errorf("a listed namespace runs it: pods %v", keys(h.pods()))
	}
}

func TestANamespaceEnforcingBaselineFailsTheBenchAtOnce(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	h := newHarness(t, sbtesting.MakeSpiralBench("psa", "lab").UID("s1").Obj(), sbtesting.ReadyNode("spark-a"), ns)
	msg := h.refusedBefore(h.reconcile(), policy.ReasonPodSecurity)
	if !strings.Contains(msg, `"baseline:latest"`) || !strings.Contains(msg, "namespace lab") {
		t.Errorf("names the namespace and its level: %s", msg)
	}
}

// failPodCreates makes the reconciler's pod creations fail with err, as the apiserver would.
func (h *harness) failPodCreates(err error) {
	h.r.Client = interceptor.NewClient(h.c.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*corev1.Pod); ok {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
	})
}

// onPodCreate runs before each pod creation of the reconciler, as a concurrent writer would.
func (h *harness) onPodCreate(before func()) {
	h.r.Client = interceptor.NewClient(h.c.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*corev1.Pod); ok {
				before()
			}
			return c.Create(ctx, obj, opts...)
		},
	})
}

func TestAPodTheApiserverRefusesFailsTheBenchAndFreesItsNode(t *testing.T) {
	h := newHarness(t, sbtesting.MakeSpiralBench("vap", "lab").UID("v1").Obj(), sbtesting.ReadyNode("spark-a"))
	h.failPodCreates(apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "vap-c0-a0-server",
		errors.New(`violates PodSecurity "baseline:latest": non-default capabilities`)))
	msg := h.refusedBefore(h.reconcile(), policy.ReasonPodsForbidden)
	if !strings.Contains(msg, `violates PodSecurity "baseline:latest"`) {
		t.Errorf("carries the apiserver's words: %s", msg)
	}
}

func TestExceededQuotaQueuesTheBenchWithoutItsNode(t *testing.T) {
	h := newHarness(t, sbtesting.MakeSpiralBench("quota", "lab").UID("q1").Obj(), sbtesting.ReadyNode("spark-a"))
	h.failPodCreates(apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "quota-c0-a0-server",
		errors.New("exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8")))
	got := h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionRunning)
	if got.Status.Phase != sbv1.PhaseQueued || c == nil || c.Reason != ReasonQuotaExceeded || !strings.Contains(c.Message, "exceeded quota: gpus") {
		t.Fatalf("queued behind the quota: phase %s, %+v", got.Status.Phase, c)
	}
	if len(h.leases()) != 0 {
		t.Errorf("a bench waiting for quota holds no node: %d leases", len(h.leases()))
	}
	h.r.Client = h.c // room again
	if h.reconcile(); len(h.pods()) != 1 {
		t.Errorf("starts once the quota has room: pods %v", keys(h.pods()))
	}
}
