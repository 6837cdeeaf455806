package benchstate

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// OwnerEvents is an event handler that hands enqueue the key of an object's controller when
// that controller is of kind owner, in the object's namespace (both owners are namespaced).
// controller-runtime's EnqueueRequestForOwner asks the REST mapper for the owner's scope on
// every event, and at a pod event a second that was a tenth of the manager's allocations. An
// event only wakes the owner's reconcile, which trusts nothing it did not create.
func OwnerEvents(owner schema.GroupKind, enqueue func(types.NamespacedName, workqueue.TypedRateLimitingInterface[reconcile.Request])) handler.EventHandler {
	send := func(o client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if key, ok := controllerKey(o, owner); ok {
			enqueue(key, q)
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			send(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			send(e.ObjectNew, q)
			if old, ok := controllerKey(e.ObjectOld, owner); ok {
				if now, _ := controllerKey(e.ObjectNew, owner); now != old {
					enqueue(old, q) // a changed controller reference wakes both owners
				}
			}
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			send(e.Object, q)
		},
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			send(e.Object, q)
		},
	}
}

// controllerKey is the key of o's controller when it is of kind owner.
func controllerKey(o client.Object, owner schema.GroupKind) (types.NamespacedName, bool) {
	for _, ref := range o.GetOwnerReferences() {
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || ref.Kind != owner.Kind || gv.Group != owner.Group {
			return types.NamespacedName{}, false
		}
		return types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}, true
	}
	return types.NamespacedName{}, false
}
