package benchctrl

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
)

// Results preflight: a bench whose results cannot be uploaded learns it before its first cell,
// not after its last. The upload target is resolved as the upload will resolve it; while that
// fails the bench measures nothing and waits in Pending (holding no node) with ResultsReady=False
// saying what to fix, and looks again with a backoff, so a Secret created or labelled later is
// found without touching the bench. It waits rather than fails: the Secret may legitimately be
// created after the bench, as admission documents for every referenced object.

// resultsReady checks the bench's bucket before its first cell. ok is false while the bench must
// wait, and wait is when to look again.
func (r *Reconciler) resultsReady(ctx context.Context, sb *sbv1.SpiralBench) (wait time.Duration, ok bool) {
	spec, secretNS := r.target(sb)
	if spec == nil {
		meta.RemoveStatusCondition(&sb.Status.Conditions, sbv1.ConditionResultsReady)
		return 0, true
	}
	if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsReady); c != nil &&
		c.Status == metav1.ConditionTrue && c.ObservedGeneration == sb.Generation {
		return 0, true // checked for this spec; spec.results may change, and then it is checked again
	}
	_, err := benchstate.ResolveTarget(ctx, r.APIReader, spec, secretNS, sb.Namespace, sb.Spec.Results == nil, r.AllowedEndpoints)
	if err == nil {
		setCondition(sb, sbv1.ConditionResultsReady, metav1.ConditionTrue, sbv1.ReasonResultsReachable,
			fmt.Sprintf("credentials Secret %s in namespace %s is readable for s3://%s at %s", spec.CredentialsSecretRef.Name, secretNS, spec.Bucket, spec.Endpoint))
		return 0, true
	}
	reason := sbv1.ReasonResultsNotReady
	if te := (*benchstate.TargetError)(nil); errors.As(err, &te) {
		reason = te.Reason
	}
	msg := clip(err.Error(), 1000)
	before := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsReady)
	if setCondition(sb, sbv1.ConditionResultsReady, metav1.ConditionFalse, reason, msg) || before.Reason != reason {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, reason, "Preflight", "no cell starts until the results can be uploaded: %s", msg)
	}
	sb.Status.Phase = sbv1.PhasePending
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonResultsNotReady, "no cell starts until the results can be uploaded: "+msg)
	since := time.Since(meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsReady).LastTransitionTime.Time)
	return min(max(since/2, minUploadRetry), maxUploadRetry), false
}
