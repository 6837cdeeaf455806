package fleetctrl

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// storeCache is a cache.Cache whose informers are client-go's shared informers, as the
// manager's are, filled by hand.
type storeCache struct {
	cache.Cache
	informers map[string]toolscache.SharedIndexInformer
}

func (c storeCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informers[kindName(obj)], nil
}

func kindName(obj client.Object) string {
	switch obj.(type) {
	case *sbv1.SpiralBench:
		return "bench"
	case *corev1.Node:
		return "node"
	}
	return ""
}

func filled(t *testing.T, proto client.Object, objs ...client.Object) toolscache.SharedIndexInformer {
	t.Helper()
	inf := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, proto, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		if err := inf.GetIndexer().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return inf
}

// A step reads the cache's own objects, without copies: one namespace's (or a cluster-scoped
// kind's every) object that the filter keeps; without a client-go informer it lists through the
// client and keeps the same ones.
func TestCachedObjectsAreTheCachesOwn(t *testing.T) {
	mine := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "lab", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	other := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "lab"}}
	elsewhere := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "other", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	n1, n2 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}
	r := &Reconciler{cache: storeCache{informers: map[string]toolscache.SharedIndexInformer{
		"bench": filled(t, &sbv1.SpiralBench{}, mine, other, elsewhere),
		"node":  filled(t, &corev1.Node{}, n1, n2),
	}}}
	ctx := context.Background()
	ofFleet := func(sb *sbv1.SpiralBench) bool { return sb.Labels[sbv1.LabelFleet] == "f" }

	got, err := cachedObjects(ctx, r, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "lab", ofFleet)
	if err != nil || len(got) != 1 || got[0] != mine {
		t.Fatalf("lab's benches of fleet f: %v, %v; want the cache's own object %p", err, got, mine)
	}
	nodes, err := cachedObjects(ctx, r, &corev1.Node{}, &corev1.NodeList{}, "", func(*corev1.Node) bool { return true })
	if err != nil || len(nodes) != 2 {
		t.Fatalf("every node: %v, %d nodes", err, len(nodes))
	}

	listed := &Reconciler{Client: fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).
		WithObjects(mine.DeepCopy(), other.DeepCopy(), elsewhere.DeepCopy()).Build()}
	got, err = cachedObjects(ctx, listed, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "lab", ofFleet)
	if err != nil || len(got) != 1 || got[0].Namespace != "lab" || got[0].Name != "a" {
		t.Fatalf("without a cache to read in place, lab's benches of fleet f: %v, %v", err, got)
	}
}
