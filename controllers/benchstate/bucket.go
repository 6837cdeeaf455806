package benchstate

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
)

// BucketDefaults is the operator-wide bucket (Helm values bucket.*) for benches that name
// none; its credentials Secret lives in the manager's namespace.
type BucketDefaults struct {
	Endpoint, Bucket, Region, CredentialsSecret string
	Namespace                                   string
}

// ResolveTarget reads a bucket's credentials (Secret in secretNS) and CA bundle (ConfigMap in
// caNS) into an upload target. Unless the bucket is the operator's own (own), its endpoint must
// be one of allowed (empty allows any), checked before the Secret is read so a refused endpoint
// never sees a signed request, and its Secret must be labelled sbv1.LabelCredentials=true. Its errors
// are *TargetError: the preflight names their reason in ResultsReady.
func ResolveTarget(ctx context.Context, reader client.Reader, spec *sbv1.ResultsSpec, secretNS, caNS string, own bool, allowed []string) (bucket.Target, error) {
	if !own && !bucket.EndpointAllowed(spec.Endpoint, allowed) {
		return bucket.Target{}, &TargetError{sbv1.ReasonEndpointNotAllowed, fmt.Sprintf(
			"results.endpoint %s is not one of the endpoints this operator uploads to (%s; Helm value results.allowedEndpoints): name one of them",
			spec.Endpoint, strings.Join(allowed, ", "))}
	}
	name := spec.CredentialsSecretRef.Name
	var secret corev1.Secret
	if err := reader.Get(ctx, client.ObjectKey{Namespace: secretNS, Name: name}, &secret); err != nil {
		switch {
		case apierrors.IsForbidden(err):
			return bucket.Target{}, &TargetError{sbv1.ReasonSecretForbidden, fmt.Sprintf(
				"the operator may not read Secrets in namespace %s (credentials Secret %s): add the namespace to the Helm value credentials.namespaces (a Role per namespace)", secretNS, name)}
		case apierrors.IsNotFound(err):
			how := ", labelled " + sbv1.LabelCredentials + "=true, or name another in spec.results.credentialsSecretRef"
			if own {
				how = " (the operator's bucket: Helm values bucket.*)"
			}
			return bucket.Target{}, &TargetError{sbv1.ReasonSecretNotFound, fmt.Sprintf(
				"credentials Secret %s does not exist in namespace %s: create it with keys accessKeyID and secretAccessKey%s", name, secretNS, how)}
		}
		return bucket.Target{}, fmt.Errorf("read credentials Secret %s in namespace %s: %w", name, secretNS, err)
	}
	if !own && secret.Labels[sbv1.LabelCredentials] != "true" {
		return bucket.Target{}, &TargetError{sbv1.ReasonSecretNotLabelled, fmt.Sprintf(
			"credentials Secret %s is not labelled %s=true (namespace %s): its owner opts it in for SpiralBench uploads (kubectl label secret %s %s=true)",
			name, sbv1.LabelCredentials, secretNS, name, sbv1.LabelCredentials)}
	}
	t := bucket.Target{
		Endpoint: spec.Endpoint, Bucket: spec.Bucket, Region: spec.Region,
		AccessKeyID: string(secret.Data["accessKeyID"]), SecretAccessKey: string(secret.Data["secretAccessKey"]),
		InsecureSkipTLSVerify: spec.InsecureSkipTLSVerify,
	}
	if t.AccessKeyID == "" || t.SecretAccessKey == "" {
		return t, &TargetError{sbv1.ReasonSecretIncomplete, fmt.Sprintf(
			"credentials Secret %s (namespace %s) needs keys accessKeyID and secretAccessKey", name, secretNS)}
	}
	if ref := spec.CABundleRef; ref != nil {
		var cm corev1.ConfigMap
		if err := reader.Get(ctx, client.ObjectKey{Namespace: caNS, Name: ref.Name}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return t, &TargetError{sbv1.ReasonCABundleNotFound, fmt.Sprintf(
					"CA bundle ConfigMap %s does not exist in namespace %s: create it with the PEM certificates under key %s", ref.Name, caNS, ref.Key)}
			}
			return t, fmt.Errorf("read CA bundle ConfigMap %s in namespace %s: %w", ref.Name, caNS, err)
		}
		t.CABundlePEM = []byte(cm.Data[ref.Key])
	}
	return t, nil
}

// TargetError is a bucket target that cannot be used, with the ResultsReady reason saying why.
type TargetError struct{ Reason, msg string }

func (e *TargetError) Error() string { return e.msg }

// Results is the operator-wide bucket as a ResultsSpec, or nil.
func (d BucketDefaults) Results() *sbv1.ResultsSpec {
	if d.Bucket == "" {
		return nil
	}
	return &sbv1.ResultsSpec{Endpoint: d.Endpoint, Bucket: d.Bucket, Region: d.Region,
		CredentialsSecretRef: sbv1.SecretReference{Name: d.CredentialsSecret}}
}
