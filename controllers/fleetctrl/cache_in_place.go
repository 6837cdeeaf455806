package fleetctrl

import (
	"context"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A fleet step reads its pool, its round's benches and its node results: at 10,000 nodes tens of
// thousands of objects, every step. A cached List, even without deep copies, copies each
// object's struct into the list's items (a SpiralBench is 1.2 KB before any of its maps or
// slices): about 90 MB of garbage a step at 10,000 Quick-suite nodes, which made the collector
// the manager's largest cost and its heap's peak. inPlace reads the informer's store instead:
// pointers to the cache's own objects, no copies. They are the cache's: read them, never
// write them (the same rule as client.UnsafeDisableDeepCopy).

// inPlace lists the cached objects of kind's type in one namespace ("": every object of a cluster-scoped
// kind) that keep accepts, or says false when the cache cannot be read in place (no cache,
// as in unit tests with a fake client; an informer that is not client-go's): List then.
func inPlace[T client.Object](ctx context.Context, c cache.Cache, kind T, namespace string, keep func(T) bool) ([]T, bool) {
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
	var items []any
	if namespace == "" {
		items = store.List()
	} else if items, err = store.ByIndex(toolscache.NamespaceIndex, namespace); err != nil {
		return nil, false
	}
	out := make([]T, 0, len(items))
	for _, item := range items {
		if o, ok := item.(T); ok && keep(o) {
			out = append(out, o)
		}
	}
	return out, true
}
