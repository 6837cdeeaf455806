package benchstate

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestOwnerEventsWakeOnlyTheControllerOfTheKind(t *testing.T) {
	benchKind := sbv1.GroupVersion.WithKind("SpiralBench").GroupKind()
	var woken []string
	h := OwnerEvents(benchKind, func(key types.NamespacedName, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		woken = append(woken, key.String())
	})
	pod := func(refs ...metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "lab", OwnerReferences: refs}}
	}
	ref := func(apiVersion, kind, name string, controller bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "u", Controller: ptr.To(controller)}
	}
	gv := sbv1.GroupVersion.String()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{"controlled by a bench", pod(ref(gv, "SpiralBench", "b1", true)), []string{"lab/b1"}},
		{"another version of the group", pod(ref(sbv1.GroupVersion.Group+"/v9", "SpiralBench", "b1", true)), []string{"lab/b1"}},
		{"a bench that is an owner, not the controller", pod(ref(gv, "SpiralBench", "b1", false)), nil},
		{"a fleet's", pod(ref(gv, "SpiralBenchFleet", "f", true)), nil},
		{"the kind's name in another group", pod(ref("example.com/v1", "SpiralBench", "b1", true)), nil},
		{"no owner", pod(), nil},
	} {
		woken = nil
		h.Create(ctx, event.CreateEvent{Object: c.pod}, nil)
		h.Delete(ctx, event.DeleteEvent{Object: c.pod}, nil)
		want := slices.Concat(c.want, c.want)
		if !slices.Equal(woken, want) {
			t.Errorf("%s: woke %v, want %v", c.name, woken, want)
		}
	}

	woken = nil
	h.Update(ctx, event.UpdateEvent{ObjectOld: pod(ref(gv, "SpiralBench", "b1", true)), ObjectNew: pod(ref(gv, "SpiralBench", "b1", true))}, nil)
	if !slices.Equal(woken, []string{"lab/b1"}) {
		t.Errorf("an update woke %v, want its bench once", woken)
	}
	woken = nil
	h.Update(ctx, event.UpdateEvent{ObjectOld: pod(ref(gv, "SpiralBench", "b1", true)), ObjectNew: pod(ref(gv, "SpiralBench", "b2", true))}, nil)
	if !slices.Equal(woken, []string{"lab/b2", "lab/b1"}) {
		t.Errorf("a changed controller woke %v, want the new bench and the old", woken)
	}
}
