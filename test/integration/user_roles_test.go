package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/policy"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// People bound to config/rbac/user_roles.yaml's roles, acting through the real apiserver.

// bind grants user the ClusterRole role in ns, as `kubectl create rolebinding` would.
func bind(t *testing.T, ns, user, role string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role, Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if err := k8sClient.Create(context.Background(), rb); err != nil {
		t.Fatal(err)
	}
	// The apiserver's authorizer learns of the binding from its own watch: wait until it
	// grants what every one of these roles grants (reading benches there), so the test's next
	// request meets the binding, not the authorizer's lag.
	eventually(t, 10*time.Second, user+" bound to "+role+" in "+ns, func() (bool, string) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Group: sbv1.GroupVersion.Group, Resource: "spiralbenches"}}}
		if err := k8sClient.Create(context.Background(), review); err != nil {
			return false, err.Error()
		}
		return review.Status.Allowed, review.Status.Reason
	})
}

// forbidden fails unless err is the apiserver's Forbidden.
func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: want Forbidden, got %v", what, err)
	}
}

// waitPods waits until the bench has a pod, which proves the policy let it through.
func waitPods(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, 20*time.Second, name+"'s first pod", func() (bool, string) {
		n := len(podsOf(t, ns, name))
		return n > 0, fmt.Sprintf("%d pods", n)
	})
}

// A user bound only to spiralbench-edit in namespace A runs benches there, within the
// manager's policy, and reaches nothing of namespace B nor anything the role does not name.
func TestAnEditorOfOneNamespaceBenchesOnlyThereAndOnlyWithinThePolicy(t *testing.T) {
	requireRBAC(t)
	ctx := context.Background()
	a, b := newNamespace(t), newNamespace(t)
	bind(t, a, "alice", "spiralbench-edit")
	alice := clientAs(t, "alice")

	// Things of namespace B, made by its own users.
	theirs := sbtesting.MakeSpiralBench("theirs", b).Obj()
	theirs.Spec.Topology.Placement = nowhere()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: b}, StringData: map[string]string{"secretAccessKey": "x"}}
	for _, o := range []client.Object{theirs, secret} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	forbidden(t, "get a bench of B", alice.Get(ctx, client.ObjectKeyFromObject(theirs), &sbv1.SpiralBench{}))
	forbidden(t, "list benches of B", alice.List(ctx, &sbv1.SpiralBenchList{}, client.InNamespace(b)))
	forbidden(t, "read a bench's results in B", alice.SubResource("status").Get(ctx, theirs, &sbv1.SpiralBench{}))
	forbidden(t, "list benches of every namespace", alice.List(ctx, &sbv1.SpiralBenchList{}))
	forbidden(t, "get a Secret of B", alice.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{}))
	forbidden(t, "list Secrets of A", alice.List(ctx, &corev1.SecretList{}, client.InNamespace(a)))
	forbidden(t, "list pods of A", alice.List(ctx, &corev1.PodList{}, client.InNamespace(a)))
	forbidden(t, "create a fleet in A", alice.Create(ctx, sbtesting.MakeFleet("pool", a, "gpu").Obj(), client.DryRunAll))
	forbidden(t, "label A privileged", alice.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+policy.LabelPrivileged+`":"true"}}}`))))
	forbidden(t, "create a bench in B", alice.Create(ctx, sbtesting.MakeSpiralBench("intruder", b).Obj(), client.DryRunAll))

	// In A the apiserver lets her create benches; the manager refuses what its policy forbids.
	testNode(t, "editor-node")
	image := onTestNode(shortRun(sbtesting.MakeSpiralBench("image", a).Payloads(8000).Pairs(1), 1, 0).Obj(), "editor-node")
	image.Spec.Image = "evil.example.com/miner:1"
	priv := onTestNode(shortRun(sbtesting.MakeSpiralBench("priv", a).Payloads(8000).Pairs(1), 1, 0).Obj(), "editor-node")
	priv.Spec.Topology.Server.HostNetwork = true
	for _, sb := range []*sbv1.SpiralBench{image, priv} {
		if err := alice.Create(ctx, sb); err != nil {
			t.Fatalf("alice may create benches in A: %v", err)
		}
	}
	waitRefused(t, a, "image", policy.ReasonImageNotAllowed)
	waitRefused(t, a, "priv", policy.ReasonPrivilegedNotAllowed)
	if err := alice.Get(ctx, client.ObjectKeyFromObject(priv), &sbv1.SpiralBench{}); err != nil {
		t.Errorf("alice reads her own bench: %v", err)
	}

	// Where a cluster admin allowed privileges, the same bench runs.
	lab := privilegedNamespace(t)
	bind(t, lab, "alice", "spiralbench-edit")
	priv = onTestNode(shortRun(sbtesting.MakeSpiralBench("priv", lab).Payloads(8000).Pairs(1), 1, 0).Obj(), "editor-node")
	priv.Spec.Topology.Server.HostNetwork = true
	if err := alice.Create(ctx, priv); err != nil {
		t.Fatal(err)
	}
	waitPods(t, lab, "priv")
}

// spiralbench-view reads; spiralbench-fleet-editor creates fleets but no benches.
func TestViewersReadAndFleetEditorsCreateOnlyFleets(t *testing.T) {
	requireRBAC(t)
	ctx := context.Background()
	ns := newNamespace(t)
	bind(t, ns, "victor", "spiralbench-view")
	bind(t, ns, "olga", "spiralbench-fleet-editor")
	victor, olga := clientAs(t, "victor"), clientAs(t, "olga")
	if err := victor.List(ctx, &sbv1.SpiralBenchList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("a viewer lists benches: %v", err)
	}
	if err := victor.List(ctx, &sbv1.SpiralBenchFleetList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("a viewer lists fleets: %v", err)
	}
	forbidden(t, "a viewer creates a bench", victor.Create(ctx, sbtesting.MakeSpiralBench("v", ns).Obj(), client.DryRunAll))
	if err := olga.Create(ctx, sbtesting.MakeFleet("pool", ns, "gpu").Obj(), client.DryRunAll); err != nil {
		t.Errorf("a fleet editor creates fleets: %v", err)
	}
	forbidden(t, "a fleet editor creates a bench", olga.Create(ctx, sbtesting.MakeSpiralBench("o", ns).Obj(), client.DryRunAll))
	forbidden(t, "a fleet editor patches nodes", olga.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "editor-node"}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`))))
}
