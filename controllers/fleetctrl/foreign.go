package fleetctrl

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// A fleet's steps are decided only by the benches and check pods it created itself. An object
// in the way (under the name a step's bench or check must have, without the manager's mark)
// ends that step Invalid with the reason ReasonForeignObject; it is never judged, deleted or
// waited on. One that only carries the fleet's labels and owner reference is ignored: it takes
// no name of the fleet's, so it stands in no step's way.

// fleetObjectKey is the view's key of a fleet's bench or check pod: its step key, and for an
// upgrade the gate id.
func fleetObjectKey(o client.Object) string {
	kind := o.GetLabels()[sbv1.LabelFleetKind]
	key := stepKey(kind, o.GetAnnotations()[annotationSubject], o.GetLabels()[sbv1.LabelFleetStep])
	if kind == fleet.KindUpgrade {
		key += "/" + o.GetLabels()[sbv1.LabelFleetRound]
	}
	return key
}

// foreignObjects remembers, per fleet and round, the objects a create met in its way: the view
// lists only what carries the fleet's labels, and an object squatting on a step's name may carry
// none. A restarted manager learns them again from its next create.
type foreignObjects struct {
	mu sync.Mutex
	m  map[types.NamespacedName]foreignRound
}

type foreignRound struct {
	uid    types.UID // a fleet deleted and made again under its name starts afresh
	round  int32
	reason map[string]string // fleetObjectKey -> why
}

func (o *foreignObjects) note(f *sbv1.SpiralBenchFleet, key, why string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[types.NamespacedName]foreignRound{}
	}
	id := client.ObjectKeyFromObject(f)
	fr := o.m[id]
	if fr.reason == nil || fr.uid != f.UID || fr.round != f.Status.Round {
		fr = foreignRound{uid: f.UID, round: f.Status.Round, reason: map[string]string{}}
	}
	fr.reason[key] = why
	o.m[id] = fr
}

func (o *foreignObjects) clear(f *sbv1.SpiralBenchFleet, key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if fr, ok := o.m[client.ObjectKeyFromObject(f)]; ok {
		delete(fr.reason, key)
	}
}

// of copies what is known of the fleet's current round into into.
func (o *foreignObjects) of(f *sbv1.SpiralBenchFleet, into map[string]string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fr, ok := o.m[client.ObjectKeyFromObject(f)]
	if !ok {
		return
	}
	if fr.uid != f.UID || fr.round != f.Status.Round {
		delete(o.m, client.ObjectKeyFromObject(f))
		return
	}
	for k, why := range fr.reason {
		into[k] = why
	}
}

// forget drops a deleted fleet's entries.
func (o *foreignObjects) forget(fleet types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, fleet)
}

// ownedBy says o is owner's and was created by this manager.
func (r *Reconciler) ownedBy(o client.Object, owner metav1.Object) bool {
	return metav1.IsControlledBy(o, owner) && benchstate.Trusted(r.Provenance, o)
}

// createMarked creates a bench or check pod with the manager's mark. A bench's mark covers its
// spec as the apiserver stores it, defaults included (storedSpec). An object already there is
// kept if the manager made it, else noted as foreign for the next step.
func (r *Reconciler) createMarked(ctx context.Context, f *sbv1.SpiralBenchFleet, o client.Object) error {
	marked := o
	if sb, ok := o.(*sbv1.SpiralBench); ok {
		stored, err := r.storedSpec(ctx, sb)
		if err != nil {
			return err
		}
		if stored != nil {
			withDefaults := sb.DeepCopy()
			withDefaults.Spec = *stored
			marked = withDefaults
		}
	}
	if err := benchstate.Mark(r.Provenance, marked); err != nil {
		return err
	}
	o.SetAnnotations(marked.GetAnnotations())
	err := r.Create(ctx, o)
	if err == nil {
		r.foreign.clear(f, fleetObjectKey(o)) // what was in the way is gone
	}
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	there := o.DeepCopyObject().(client.Object)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(o), there); err != nil {
		return client.IgnoreNotFound(err) // gone since: the next step creates it again
	}
	if ferr := benchstate.Foreign(r.Provenance, there); ferr != nil {
		r.foreign.note(f, fleetObjectKey(o), shorten(ferr.Error(), 160))
		r.event(f, true, provenance.ReasonForeignObject, "%s", ferr.Error())
	}
	return nil
}
