package incache

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A reader gets the cache's own objects, without copies: one namespace's (or a cluster-scoped
// kind's every) object that the filter keeps; without a client-go informer it lists through the
// client and keeps the same ones.
func TestObjectsAreTheCachesOwn(t *testing.T) {
	mine := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "lab", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	other := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "lab"}}
	elsewhere := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "other", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	n1, n2 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}
	c, err := sbtesting.InformerCache(mine, other, elsewhere, n1, n2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ofFleet := func(sb *sbv1.SpiralBench) bool { return sb.Labels[sbv1.LabelFleet] == "f" }

	got, err := Objects(ctx, c, nil, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "lab", ofFleet)
	if err != nil || len(got) != 1 || got[0] != mine {
		t.Fatalf("lab's benches of fleet f: %v, %v; want the cache's own object %p", err, got, mine)
	}
	nodes, err := Objects(ctx, c, nil, &corev1.Node{}, &corev1.NodeList{}, "", func(*corev1.Node) bool { return true })
	if err != nil || len(nodes) != 2 {
		t.Fatalf("every node: %v, %d nodes", err, len(nodes))
	}
	everywhere, err := Objects(ctx, c, nil, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "", ofFleet)
	if err != nil || len(everywhere) != 2 {
		t.Fatalf("every namespace's benches of fleet f: %v, %d", err, len(everywhere))
	}

	listed := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).
		WithObjects(mine.DeepCopy(), other.DeepCopy(), elsewhere.DeepCopy()).Build()
	got, err = Objects(ctx, nil, listed, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "lab", ofFleet)
	if err != nil || len(got) != 1 || got[0].Namespace != "lab" || got[0].Name != "a" {
		t.Fatalf("without a cache to read in place, lab's benches of fleet f: %v, %v", err, got)
	}
}
