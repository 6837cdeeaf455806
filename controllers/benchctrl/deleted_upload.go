package benchctrl

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// A bench deleted while it runs keeps what it measured: before its finalizer lets it go, the
// cells already measured go to its bucket as a partial run whose verdict says it was deleted
// (never Passed), like any other run folder, signed; so does a finished bench deleted before
// its own upload was done.

// ReasonDeleted is the verdict of a run uploaded because its bench was deleted before it ended.
const ReasonDeleted = "Deleted"

// partialUploadWait bounds how long a deleted bench's finalizer retries its partial upload
// (an unreachable bucket must not keep the bench from going); past it a warning event says
// what was not kept.
const partialUploadWait = 2 * time.Minute

// measuredSomething says a cell of the bench has a repeat measured.
func measuredSomething(sb *sbv1.SpiralBench) bool {
	for _, c := range sb.Status.CellResults {
		if len(c.RepeatResults) > 0 {
			return true
		}
	}
	return false
}

// uploadDeleted keeps what a deleted bench owes its bucket: a finished bench's run as it was
// judged (deleted before its upload was done), an unfinished one's measured cells as a partial
// run. It returns an error, to be retried, while partialUploadWait has not passed since the
// deletion.
func (r *Reconciler) uploadDeleted(ctx context.Context, sb *sbv1.SpiralBench) error {
	if !r.uploadOwed(sb) {
		return nil
	}
	if err := r.attachAttempts(ctx, sb); err != nil {
		return err
	}
	run := sb.DeepCopy()
	var msg string
	switch {
	case sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed:
		msg = "deleted after it ended, before its upload"
	case !measuredSomething(sb):
		return nil
	default:
		now := metav1.Now()
		run.Status.CompletionTime, run.Status.Phase = &now, sbv1.PhaseFailed
		updateCounts(run)
		msg = fmt.Sprintf("deleted while running, at cell %s: a partial run (%d of %d cells valid), never a verdict",
			run.Status.Progress, run.Status.Cells.Succeeded, run.Status.Cells.Total)
		setCondition(run, sbv1.ConditionPassed, metav1.ConditionFalse, ReasonDeleted, msg)
		setCondition(run, sbv1.ConditionFailed, metav1.ConditionTrue, ReasonDeleted, msg)
	}
	spec, secretNS := r.target(run)
	uris, err := r.upload(ctx, run, spec, secretNS)
	if err == nil {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, "PartialUploaded", "Upload", "%s; %d objects in s3://%s/%s",
			msg, len(uris), spec.Bucket, report.Prefix(run, spec.Prefix))
		return nil
	}
	if time.Since(sb.DeletionTimestamp.Time) < partialUploadWait {
		return fmt.Errorf("upload the deleted bench's measured cells: %w", err)
	}
	r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, "PartialUploadFailed", "Upload",
		"%s; its results were not uploaded within %s: %s", msg, partialUploadWait, clip(err.Error(), 800))
	return nil
}
