package testing

import (
	"context"
	"reflect"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InformerCache is a cache.Cache whose informers are client-go's shared informers, as the
// manager's are, filled with objs (one informer per Go type, indexed by namespace) and never
// started: what pkg/incache reads in place. Only GetInformer is served.
func InformerCache(objs ...client.Object) (cache.Cache, error) {
	c := informerCache{informers: map[reflect.Type]toolscache.SharedIndexInformer{}}
	for _, o := range objs {
		t := reflect.TypeOf(o)
		inf, ok := c.informers[t]
		if !ok {
			inf = toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, o, 0,
				toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
			c.informers[t] = inf
		}
		if err := inf.GetIndexer().Add(o); err != nil {
			return nil, err
		}
	}
	return c, nil
}

type informerCache struct {
	cache.Cache
	informers map[reflect.Type]toolscache.SharedIndexInformer
}

// GetInformer is the informer of obj's type; an empty one for a type no object had.
func (c informerCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	if inf, ok := c.informers[reflect.TypeOf(obj)]; ok {
		return inf, nil
	}
	return toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, obj, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}), nil
}
