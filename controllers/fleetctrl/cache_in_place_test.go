package fleetctrl

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
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
// kind's every) object that the filter keeps; without a client-go informer it says so, and the
// step lists instead.
func TestInPlaceReadsTheCachesOwnObjects(t *testing.T) {
	mine := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "lab", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	other := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "lab"}}
	elsewhere := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "other", Labels: map[string]string{sbv1.LabelFleet: "f"}}}
	n1, n2 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}
	c := storeCache{informers: map[string]toolscache.SharedIndexInformer{
		"bench": filled(t, &sbv1.SpiralBench{}, mine, other, elsewhere),
		"node":  filled(t, &corev1.Node{}, n1, n2),
	}}
	ctx := context.Background()

	got, ok := inPlace(ctx, c, &sbv1.SpiralBench{}, "lab", func(sb *sbv1.SpiralBench) bool { return sb.Labels[sbv1.LabelFleet] == "f" })
	if !ok || len(got) != 1 || got[0] != mine {
		t.Fatalf("lab's benches of fleet f: ok %v, %v; want the cache's own object %p", ok, got, mine)
	}
	nodes, ok := inPlace(ctx, c, &corev1.Node{}, "", func(*corev1.Node) bool { return true })
	if !ok || len(nodes) != 2 {
		t.Fatalf("every node: ok %v, %d nodes", ok, len(nodes))
	}
	if _, ok := inPlace(ctx, nil, &corev1.Node{}, "", func(*corev1.Node) bool { return true }); ok {
		t.Fatal("no cache, yet read in place")
	}
}
