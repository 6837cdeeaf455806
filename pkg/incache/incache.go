// Package incache reads the manager's informer cache in place: pointers to the cache's own
// objects, no copies.
package incache

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A fleet step reads its pool, its round's benches and its node results, and a metrics scrape
// every bench and result: at 10,000 nodes tens of thousands of objects each time. A cached List,
// even without deep copies, copies each object's struct into the list's items (a SpiralBench is
// 1.2 KB before any of its maps or slices): about 90 MB of garbage a step at 10,000 Quick-suite
// nodes, which made the collector the manager's largest cost and its heap's peak. Objects reads
// the informer's store instead: pointers to the cache's own objects, no copies. They are the
// cache's: read them, never write them (the same rule as client.UnsafeDisableDeepCopy).

// Objects are the objects of kind's type in namespace ("": every object of a cluster-scoped kind,
// or of every namespace) that keep accepts, read in place from c's informer store. Where the
// cache cannot be read in place (nil, as for a reconciler built without a manager in unit tests;
// an informer that is not client-go's) they are listed through reader into list and kept the
// same way.
func Objects[T client.Object](ctx context.Context, c cache.Cache, reader client.Reader, kind T, list client.ObjectList, namespace string,
	keep func(T) bool) ([]T, error) {
	var out []T
	add := func(o any) {
		if t, ok := o.(T); ok && keep(t) {
			out = append(out, t)
		}
	}
	if items, ok := inPlace(ctx, c, kind, namespace); ok {
		out = make([]T, 0, len(items)) // one slice, not the doublings of a 30,000-item append
		for _, item := range items {
			add(item)
		}
		return out, nil
	}
	if err := reader.List(ctx, list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	return out, meta.EachListItem(list, func(o runtime.Object) error { add(o); return nil })
}

// inPlace is the informer store's objects of kind's type in namespace (all of them for ""), or
// false when the cache cannot be read in place.
func inPlace(ctx context.Context, c cache.Cache, kind client.Object, namespace string) ([]any, bool) {
	if c == nil {
		return nil, false
	}
	inf, err := c.GetInformer(ctx, kind)
	if err != nil {
		return nil, false
	}
	shared, ok := inf.(toolscache.SharedIndexInformer)
	if !ok {
		return nil, false
	}
	store := shared.GetIndexer()
	if namespace == "" {
		return store.List(), true
	}
	items, err := store.ByIndex(toolscache.NamespaceIndex, namespace)
	return items, err == nil
}
