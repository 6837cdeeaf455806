package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/policy"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The admin's policy and the cluster's own admission against a real apiserver: Pod Security
// (enabled by default in kube-apiserver), a ValidatingAdmissionPolicy and ResourceQuotas.

// labelledNamespace creates a namespace with labels, as a cluster admin would.
func labelledNamespace(t *testing.T, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sb-sec-", Labels: labels}}
	if err := k8sClient.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// privilegedNamespace may run privileged and host-network benches.
func privilegedNamespace(t *testing.T) string {
	return labelledNamespace(t, map[string]string{policy.LabelPrivileged: "true"})
}

// waitRefused waits for the bench to fail for reason and checks that no pod was ever created
// (startTime is set with the first pod) and a Warning event says why; it returns the message.
func waitRefused(t *testing.T, ns, name, reason string) string {
	t.Helper()
	sb := &sbv1.SpiralBench{}
	eventually(t, 20*time.Second, name+" Failed for "+reason, func() (bool, string) {
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sb); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionFailed)
		return sb.Status.Phase == sbv1.PhaseFailed && c != nil && c.Reason == reason, fmt.Sprintf("phase %s conditions %+v", sb.Status.Phase, sb.Status.Conditions)
	})
	if sb.Status.StartTime != nil || len(podsOf(t, ns, name)) != 0 {
		t.Errorf("%s: refused after a pod was created (startTime %v)", name, sb.Status.StartTime)
	}
	eventually(t, 10*time.Second, name+" Warning "+reason, func() (bool, string) {
		notes := warningNotes(t, ns, name)
		return strings.Contains(notes, reason+": "), notes
	})
	return meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionFailed).Message
}

// A namespace enforcing baseline refuses every bench pod (their capabilities); the manager
// says so before creating one, and the apiserver refuses the very pod it would have created.
func TestABenchInABaselineNamespaceFailsFastNamingTheLevel(t *testing.T) {
	requireEnv(t)
	ns := labelledNamespace(t, map[string]string{"pod-security.kubernetes.io/enforce": "baseline"})
	testNode(t, "psa-node")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("psa", ns).Payloads(8000).Pairs(1), 1, 0).Obj(), "psa-node")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	msg := waitRefused(t, ns, "psa", policy.ReasonPodSecurity)
	for _, want := range []string{"namespace " + ns, `"baseline:latest"`, "non-default capabilities", "pod-security.kubernetes.io/enforce=privileged"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if holder, held := leaseHolder("psa-node"); held {
		t.Errorf("a refused bench holds no node, lease held by %s", holder)
	}

	// The apiserver's PodSecurity admission agrees: it refuses the pod the manager would build.
	cells, _ := plan.Expand(&sb.Spec)
	in, err := cellpod.NewInput(sb, cells[0], 0, 1, 0, []string{"psa-node"})
	if err != nil {
		t.Fatal(err)
	}
	in.DefaultImage = "spiralbench/dataplane:test"
	err = k8sClient.Create(context.Background(), cellpod.Build(in, in.Ranks[0], ""), client.DryRunAll)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `violates PodSecurity "baseline:latest"`) {
		t.Errorf("the apiserver enforces Pod Security on the bench's pod: got %v", err)
	}
}

// A pod the apiserver refuses for a reason the manager cannot see beforehand (here a
// ValidatingAdmissionPolicy) fails the bench at once with the apiserver's words, and frees its node.
func TestAPodRefusedByAnAdmissionPolicyFailsTheBench(t *testing.T) {
	requireEnv(t)
	ctx := context.Background()
	ns := newNamespace(t)
	name := "no-bench-pods-" + ns
	vap := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}},
			}}},
			Validations: []admissionv1.Validation{{
				Expression: "!has(object.metadata.labels) || !('" + cellpod.LabelBench + "' in object.metadata.labels)",
				Message:    "benchmark pods are not welcome in this namespace", Reason: ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}}},
	}
	for _, o := range []client.Object{vap, binding} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(ctx, o) })
	}
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns, Labels: map[string]string{cellpod.LabelBench: "probe"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	eventually(t, 20*time.Second, "the policy in force", func() (bool, string) {
		err := k8sClient.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		return apierrors.IsForbidden(err), fmt.Sprint(err)
	})

	testNode(t, "vap-node")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("vap", ns).Payloads(8000).Pairs(1), 1, 0).Obj(), "vap-node")
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	msg := waitRefused(t, ns, "vap", policy.ReasonPodsForbidden)
	if !strings.Contains(msg, "benchmark pods are not welcome in this namespace") {
		t.Errorf("carries the apiserver's message: %s", msg)
	}
	if holder, held := leaseHolder("vap-node"); held {
		t.Errorf("the node is free again, lease held by %s", holder)
	}
}

// quota creates a ResourceQuota and writes its status as kube-controller-manager's quota
// controller would (envtest runs none); the apiserver's ResourceQuota admission then counts.
func quota(t *testing.T, ns string, hard corev1.ResourceList) *corev1.ResourceQuota {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "spiralbench", Namespace: ns}, Spec: corev1.ResourceQuotaSpec{Hard: hard}}
	if err := k8sClient.Create(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	setQuotaStatus(t, q, hard)
	return q
}

func setQuotaStatus(t *testing.T, q *corev1.ResourceQuota, hard corev1.ResourceList) {
	t.Helper()
	used := corev1.ResourceList{}
	for k := range hard {
		used[k] = resource.MustParse("0")
	}
	q.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	if err := k8sClient.Status().Update(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

// Benches are counted like any object: count/spiralbenches.spiralbench.io caps them per namespace.
func TestAResourceQuotaCapsTheBenchesOfANamespace(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	quota(t, ns, corev1.ResourceList{"count/spiralbenches.spiralbench.io": resource.MustParse("1")})
	first := sbtesting.MakeSpiralBench("first", ns).Obj()
	first.Spec.Topology.Placement = nowhere()
	if err := k8sClient.Create(context.Background(), first); err != nil {
		t.Fatalf("the first bench fits the quota: %v", err)
	}
	second := sbtesting.MakeSpiralBench("second", ns).Obj()
	second.Spec.Topology.Placement = nowhere()
	err := k8sClient.Create(context.Background(), second)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota: spiralbench") || !strings.Contains(err.Error(), "count/spiralbenches.spiralbench.io") {
		t.Fatalf("the second bench is over the quota: %v", err)
	}
}

// A bench whose pod would exceed the namespace's GPU quota waits in Queued without its node,
// and starts once the quota has room.
func TestABenchOverItsGPUQuotaWaitsWithoutItsNode(t *testing.T) {
	requireEnv(t)
	ctx := context.Background()
	ns := newNamespace(t)
	gpus := corev1.ResourceName("requests.nvidia.com/gpu")
	q := quota(t, ns, corev1.ResourceList{gpus: resource.MustParse("0")})
	gpuTestNode(t, "quota-node")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("gpu", ns).Payloads(8000).Pairs(1), 1, 0).Obj(), "quota-node")
	sb.Spec.Topology.Server.GPUs = 1
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "gpu Queued for its quota", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), cur); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionRunning)
		return cur.Status.Phase == sbv1.PhaseQueued && c != nil && c.Reason == benchctrl.ReasonQuotaExceeded &&
			strings.Contains(c.Message, "exceeded quota: spiralbench"), fmt.Sprintf("phase %s, %+v", cur.Status.Phase, c)
	})
	if holder, held := leaseHolder("quota-node"); held {
		t.Errorf("a bench waiting for quota holds no node, lease held by %s", holder)
	}

	room := corev1.ResourceList{gpus: resource.MustParse("1")}
	q.Spec.Hard = room
	if err := k8sClient.Update(ctx, q); err != nil {
		t.Fatal(err)
	}
	setQuotaStatus(t, q, room)
	eventually(t, 30*time.Second, "gpu's server pod once the quota has room", func() (bool, string) {
		var names []string
		for _, p := range podsOf(t, ns, "gpu") {
			if p.Labels[cellpod.LabelRole] == cellpod.RoleServer {
				return true, ""
			}
			names = append(names, p.Name)
		}
		return false, fmt.Sprintf("pods %v", names)
	})
}
