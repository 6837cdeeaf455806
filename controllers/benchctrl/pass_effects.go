package benchctrl

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// passEffects holds what a reconcile pass reports (events, metrics) until its status write lands.
// The cache can lag our own writes: a reconcile right after one reads the bench as it was and
// takes the same step again (its pod exists already, its status patch fails the optimistic
// lock). Reporting only persisted steps keeps each event and metric to one per transition.
type passEffects struct {
	events.EventRecorder
	pending []func()
}

// Eventf queues the event, its note formatted now (the step goes on changing its arguments).
func (e *passEffects) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	msg := fmt.Sprintf(note, args...)
	e.pending = append(e.pending, func() { e.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", msg) })
}

// flush reports what the persisted step queued.
func (e *passEffects) flush() {
	for _, f := range e.pending {
		f()
	}
	e.pending = nil
}

// afterPersist runs f once the step's status is written; at once outside a step.
func (r *Reconciler) afterPersist(f func()) {
	if e, ok := r.Recorder.(*passEffects); ok {
		e.pending = append(e.pending, f)
		return
	}
	f()
}
