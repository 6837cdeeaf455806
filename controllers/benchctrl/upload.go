package benchctrl

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// Upload retry backoff: half the time since the upload first failed, within these bounds.
const (
	minUploadRetry = 5 * time.Second
	maxUploadRetry = 60 * time.Second
)

// target returns the bench's bucket and the namespace of its Secret, or nil for none.
func (r *Reconciler) target(sb *sbv1.SpiralBench) (*sbv1.ResultsSpec, string) {
	if sb.Spec.Results != nil {
		return sb.Spec.Results, sb.Namespace
	}
	d := r.DefaultBucket
	if d.Bucket == "" {
		return nil, ""
	}
	return d.Results(), d.Namespace
}

// uploadOwed says the bench has a bucket its results are not in yet.
func (r *Reconciler) uploadOwed(sb *sbv1.SpiralBench) bool {
	spec, _ := r.target(sb)
	return spec != nil && !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
}

// uploadResults puts a finished bench's files into its bucket. Failure leaves the results in
// status, says why in ResultsUploaded=False, and asks to be called again after a backoff.
func (r *Reconciler) uploadResults(ctx context.Context, sb *sbv1.SpiralBench) time.Duration {
	if !r.uploadOwed(sb) {
		return 0
	}
	spec, secretNS := r.target(sb)
	uris, err := r.upload(ctx, sb, spec, secretNS)
	if err != nil {
		msg := clip(err.Error(), 1000)
		if setCondition(sb, sbv1.ConditionResultsUploaded, metav1.ConditionFalse, sbv1.ReasonUploadFailed, msg) {
			r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, sbv1.ReasonUploadFailed, "Upload", "%s", msg)
		}
		since := time.Since(meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsUploaded).LastTransitionTime.Time)
		return min(max(since/2, minUploadRetry), maxUploadRetry)
	}
	sb.Status.Artifacts = &sbv1.Artifacts{RunID: report.RunID(sb), URIs: uris}
	msg := fmt.Sprintf("%d objects in s3://%s/%s", len(uris), spec.Bucket, report.Prefix(sb, spec.Prefix))
	setCondition(sb, sbv1.ConditionResultsUploaded, metav1.ConditionTrue, sbv1.ReasonUploaded, msg)
	r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonUploaded, "Upload", "%s", msg)
	return 0
}

func (r *Reconciler) upload(ctx context.Context, sb *sbv1.SpiralBench, spec *sbv1.ResultsSpec, secretNS string) ([]string, error) {
	t, err := benchstate.ResolveTarget(ctx, r.APIReader, spec, secretNS, sb.Namespace, sb.Spec.Results == nil, r.AllowedEndpoints)
	if err != nil {
		return nil, err
	}
	files, err := report.Files(sb)
	if err != nil {
		return nil, err
	}
	views, err := htmlreport.Files(sb) // report.html and plots/, beside runs.csv
	if err != nil {
		return nil, err
	}
	maps.Copy(files, views)
	// SIGNATURE.json: a gate checks the download offline with the published public key.
	if err := r.Provenance.Sign(files); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return r.Uploader.Upload(ctx, t, report.Prefix(sb, spec.Prefix), files)
}
