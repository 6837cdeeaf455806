// Package benchstate holds what both reconcilers need to know about a bench and the objects
// the manager makes for it: whether the manager made them (provenance marks), whether a bench
// or pod has finished or failed, the finalizer, the labels of the manager's own pods, a bench's
// attempt results and the operator's default bucket. The bench and fleet reconcilers import it
// and never each other.
package benchstate

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// Only what the manager created decides: every object it creates and later reads back to
// decide (cell and check pods, a fleet's benches, attempt and node results) carries its mark
// (pkg/provenance), and a lookup that meets an object without it treats it as foreign: never
// adopted, never deleted, and the attempt or step it was in the way of ends with
// ReasonForeignObject. An owner reference, a name and labels are not proof: an editor of the
// namespace can write all three.

// contentOf is what an object's mark covers, per kind.
func contentOf(o client.Object) any {
	switch o := o.(type) {
	case *corev1.Pod:
		return provenance.PodContent(o)
	case *sbv1.SpiralBench:
		return provenance.LabelledContent(o.Labels, markedBenchAnnotations(o.Annotations), markedBenchSpec(o.Spec))
	case *sbv1.SpiralBenchAttemptResult:
		body := *o
		body.TypeMeta, body.ObjectMeta = metav1.TypeMeta{}, metav1.ObjectMeta{}
		return provenance.LabelledContent(o.Labels, o.Annotations, body)
	case *sbv1.SpiralBenchNodeResult:
		body := *o
		body.TypeMeta, body.ObjectMeta = metav1.TypeMeta{}, metav1.ObjectMeta{}
		return provenance.LabelledContent(o.Labels, o.Annotations, body)
	}
	panic("no provenance content for this kind") // a programming error: every marked kind is listed
}

// markedBenchSpec leaves out what the fleet changes on its running bench (it suspends it at its
// step's deadline): the rest of the spec is immutable once the bench started.
func markedBenchSpec(s sbv1.SpiralBenchSpec) sbv1.SpiralBenchSpec {
	s.Suspend = nil
	return s
}

// markedBenchAnnotations leaves out the marks the fleet adds to its running bench.
func markedBenchAnnotations(a map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		if k != sbv1.AnnotationFleetDeadlineExceeded && k != sbv1.AnnotationFleetNoReference {
			out[k] = v
		}
	}
	return out
}

// Mark sets o's provenance mark; call it once o is final (owner reference included).
func Mark(key *provenance.Key, o client.Object) error {
	if key == nil {
		return errNoKey
	}
	return key.Mark(o, contentOf(o))
}

// Foreign returns a *provenance.ForeignError when o was not created by this manager (or was
// changed since), nil when it was.
func Foreign(key *provenance.Key, o client.Object) error {
	if key == nil {
		return errNoKey
	}
	return key.VerifyStored(o, func() any { return contentOf(o) })
}

// Trusted says o was created by this manager.
func Trusted(key *provenance.Key, o client.Object) bool { return key != nil && Foreign(key, o) == nil }

// AsForeign is err's *provenance.ForeignError, if it is one.
func AsForeign(err error) (*provenance.ForeignError, bool) {
	var f *provenance.ForeignError
	return f, errors.As(err, &f)
}

var errNoKey = errors.New("the manager has no provenance key (Secret " + provenance.SecretName + ")")
