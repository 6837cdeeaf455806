package fleetctrl

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// verdictTimeFormat fits a label value (no colons).
const verdictTimeFormat = "20060102T150405Z"

// writeVerdict puts a decided row onto its node: labels and annotation (verdicts.labels), the
// Failed taint (verdicts.taintOnFailure: added on Failed, removed on Passed; an Invalid run
// says nothing about the node and leaves the taint as it was).
func (r *Reconciler) writeVerdict(ctx context.Context, v *fleetView, row *sbv1.FleetNode) {
	spec := v.f.Spec.Verdicts
	if spec == nil || !r.NodeWrites {
		return
	}
	switch row.Verdict {
	case sbv1.NodePassed, sbv1.NodeFailed, sbv1.NodeInvalid, sbv1.NodeExpired:
	default:
		return
	}
	err := r.patchNode(ctx, row.Name, func(n *corev1.Node) {
		if spec.Labels {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			if n.Annotations == nil {
				n.Annotations = map[string]string{}
			}
			n.Labels[sbv1.LabelVerdict] = string(row.Verdict)
			if row.Verdict == sbv1.NodeExpired {
				return // the time, run and reasons stay those of the verdict that expired
			}
			when := r.now()
			if row.LastBenchTime != nil {
				when = row.LastBenchTime.Time
			}
			n.Labels[sbv1.LabelVerdictTime] = when.UTC().Format(verdictTimeFormat)
			n.Annotations[sbv1.AnnotationVerdictRun] = v.f.Namespace + "/" + row.Bench + "/" + row.RunID
			setOrDelete(n.Labels, sbv1.LabelVerdictValidUntil, "")
			if row.ValidUntil != nil {
				n.Labels[sbv1.LabelVerdictValidUntil] = row.ValidUntil.UTC().Format(verdictTimeFormat)
			}
			setOrDelete(n.Annotations, sbv1.AnnotationVerdictReasons, strings.Join(row.Reasons, ","))
			setOrDelete(n.Labels, sbv1.LabelVerdictClass, row.Class)
		}
		if spec.TaintOnFailure {
			switch row.Verdict {
			case sbv1.NodeFailed:
				setTaint(n, taintVerdict, string(sbv1.NodeFailed))
			case sbv1.NodePassed:
				removeTaint(n, taintVerdict)
			}
		}
	})
	if err != nil {
		r.event(v.f, true, "NodeWriteFailed", "write the verdict of node %s: %v", row.Name, err)
	}
}

// patchNode applies mutate to the node and patches what changed, with an optimistic lock so
// that a concurrent change to the taints (the upgrade controller's cordon) is never lost.
func (r *Reconciler) patchNode(ctx context.Context, name string, mutate func(*corev1.Node)) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var n corev1.Node
		reader := client.Reader(r.Client)
		if attempt > 0 {
			reader = r.APIReader
		}
		if err = reader.Get(ctx, client.ObjectKey{Name: name}, &n); err != nil {
			return client.IgnoreNotFound(err)
		}
		before := n.DeepCopy()
		mutate(&n)
		if equality.Semantic.DeepEqual(before.Labels, n.Labels) && equality.Semantic.DeepEqual(before.Annotations, n.Annotations) &&
			equality.Semantic.DeepEqual(before.Spec.Taints, n.Spec.Taints) {
			return nil
		}
		if err = r.Patch(ctx, &n, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

func setOrDelete(m map[string]string, key, value string) {
	if value == "" {
		delete(m, key)
		return
	}
	m[key] = value
}

func setTaint(n *corev1.Node, key, value string) {
	for i := range n.Spec.Taints {
		if n.Spec.Taints[i].Key == key {
			n.Spec.Taints[i].Value, n.Spec.Taints[i].Effect = value, corev1.TaintEffectNoSchedule
			return
		}
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule})
}

func removeTaint(n *corev1.Node, key string) {
	kept := n.Spec.Taints[:0]
	for _, t := range n.Spec.Taints {
		if t.Key != key {
			kept = append(kept, t)
		}
	}
	n.Spec.Taints = kept
}
