package controllers

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// Upload retry backoff: half the time since the upload first failed, within these bounds.
const (
	minUploadRetry = 5 * time.Second
	maxUploadRetry = 60 * time.Second
)

// LabelCredentials must be "true" on a Secret before a bench's spec.results may use it: the
// Secret's owner opts it in, so that creating a bench is not enough to have the operator sign
// requests with any Secret the operator may read in that namespace.
const LabelCredentials = "spiralbench.io/credentials"

// BucketDefaults is the operator-wide bucket (Helm values bucket.*) for benches that name
// none; its credentials Secret lives in the manager's namespace.
type BucketDefaults struct {
	Endpoint, Bucket, Region, CredentialsSecret string
	Namespace                                   string
}

// target returns the bench's bucket and the namespace of its Secret, or nil for none.
func (r *SpiralBenchReconciler) target(sb *sbv1.SpiralBench) (*sbv1.ResultsSpec, string) {
	if sb.Spec.Results != nil {
		return sb.Spec.Results, sb.Namespace
	}
	d := r.DefaultBucket
	if d.Bucket == "" {
		return nil, ""
	}
	return d.results(), d.Namespace
}

// uploadOwed says the bench has a bucket its results are not in yet.
func (r *SpiralBenchReconciler) uploadOwed(sb *sbv1.SpiralBench) bool {
	spec, _ := r.target(sb)
	return spec != nil && !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
}

// uploadResults puts a finished bench's files into its bucket. Failure leaves the results in
// status, says why in ResultsUploaded=False, and asks to be called again after a backoff.
func (r *SpiralBenchReconciler) uploadResults(ctx context.Context, sb *sbv1.SpiralBench) time.Duration {
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

func (r *SpiralBenchReconciler) upload(ctx context.Context, sb *sbv1.SpiralBench, spec *sbv1.ResultsSpec, secretNS string) ([]string, error) {
	t, err := resolveTarget(ctx, r.APIReader, spec, secretNS, sb.Namespace, sb.Spec.Results == nil, r.AllowedEndpoints)
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

// resolveTarget reads a bucket's credentials (Secret in secretNS) and CA bundle (ConfigMap in
// caNS) into an upload target. Unless the bucket is the operator's own (own), its endpoint must
// be one of allowed (empty allows any), checked before the Secret is read so a refused endpoint
// never sees a signed request, and its Secret must be labelled LabelCredentials=true. Its errors
// are *targetError: the preflight names their reason in ResultsReady.
func resolveTarget(ctx context.Context, reader client.Reader, spec *sbv1.ResultsSpec, secretNS, caNS string, own bool, allowed []string) (bucket.Target, error) {
	if !own && !bucket.EndpointAllowed(spec.Endpoint, allowed) {
		return bucket.Target{}, &targetError{sbv1.ReasonEndpointNotAllowed, fmt.Sprintf(
			"results.endpoint %s is not one of the endpoints this operator uploads to (%s; Helm value results.allowedEndpoints): name one of them",
			spec.Endpoint, strings.Join(allowed, ", "))}
	}
	name := spec.CredentialsSecretRef.Name
	var secret corev1.Secret
	if err := reader.Get(ctx, client.ObjectKey{Namespace: secretNS, Name: name}, &secret); err != nil {
		switch {
		case apierrors.IsForbidden(err):
			return bucket.Target{}, &targetError{sbv1.ReasonSecretForbidden, fmt.Sprintf(
				"the operator may not read Secrets in namespace %s (credentials Secret %s): add the namespace to the Helm value credentials.namespaces (a Role per namespace)", secretNS, name)}
		case apierrors.IsNotFound(err):
			how := ", labelled " + LabelCredentials + "=true, or name another in spec.results.credentialsSecretRef"
			if own {
				how = " (the operator's bucket: Helm values bucket.*)"
			}
			return bucket.Target{}, &targetError{sbv1.ReasonSecretNotFound, fmt.Sprintf(
				"credentials Secret %s does not exist in namespace %s: create it with keys accessKeyID and secretAccessKey%s", name, secretNS, how)}
		}
		return bucket.Target{}, fmt.Errorf("read credentials Secret %s in namespace %s: %w", name, secretNS, err)
	}
	if !own && secret.Labels[LabelCredentials] != "true" {
		return bucket.Target{}, &targetError{sbv1.ReasonSecretNotLabelled, fmt.Sprintf(
			"credentials Secret %s is not labelled %s=true (namespace %s): its owner opts it in for SpiralBench uploads (kubectl label secret %s %s=true)",
			name, LabelCredentials, secretNS, name, LabelCredentials)}
	}
	t := bucket.Target{
		Endpoint: spec.Endpoint, Bucket: spec.Bucket, Region: spec.Region,
		AccessKeyID: string(secret.Data["accessKeyID"]), SecretAccessKey: string(secret.Data["secretAccessKey"]),
		InsecureSkipTLSVerify: spec.InsecureSkipTLSVerify,
	}
	if t.AccessKeyID == "" || t.SecretAccessKey == "" {
		return t, &targetError{sbv1.ReasonSecretIncomplete, fmt.Sprintf(
			"credentials Secret %s (namespace %s) needs keys accessKeyID and secretAccessKey", name, secretNS)}
	}
	if ref := spec.CABundleRef; ref != nil {
		var cm corev1.ConfigMap
		if err := reader.Get(ctx, client.ObjectKey{Namespace: caNS, Name: ref.Name}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return t, &targetError{sbv1.ReasonCABundleNotFound, fmt.Sprintf(
					"CA bundle ConfigMap %s does not exist in namespace %s: create it with the PEM certificates under key %s", ref.Name, caNS, ref.Key)}
			}
			return t, fmt.Errorf("read CA bundle ConfigMap %s in namespace %s: %w", ref.Name, caNS, err)
		}
		t.CABundlePEM = []byte(cm.Data[ref.Key])
	}
	return t, nil
}

// targetError is a bucket target that cannot be used, with the ResultsReady reason saying why.
type targetError struct{ reason, msg string }

func (e *targetError) Error() string { return e.msg }

// results is the operator-wide bucket as a ResultsSpec, or nil.
func (d BucketDefaults) results() *sbv1.ResultsSpec {
	if d.Bucket == "" {
		return nil
	}
	return &sbv1.ResultsSpec{Endpoint: d.Endpoint, Bucket: d.Bucket, Region: d.Region,
		CredentialsSecretRef: sbv1.SecretReference{Name: d.CredentialsSecret}}
}
