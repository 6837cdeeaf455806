package benchctrl

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket/buckettest"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/report"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

func TestABenchUploadIsSigned(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://s3.test:7070", Bucket: "results", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: sb.Namespace, Name: "s3", Labels: map[string]string{sbv1.LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("k"), "secretAccessKey": []byte("s")}}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(secret).Build()
	store, key := buckettest.MemStore{}, provenance.RandomKey()
	r := &Reconciler{Client: c, APIReader: c, Uploader: store, Provenance: key}
	if _, err := r.upload(context.Background(), sb, sb.Spec.Results, sb.Namespace); err != nil {
		t.Fatal(err)
	}
	files := store.Folder(report.Prefix(sb, ""))
	if _, err := provenance.VerifyFiles(files, key.Public()); err != nil || files["runs.csv"] == nil || files[provenance.SignatureFile] == nil {
		t.Fatalf("the uploaded folder (%d files) does not verify: %v", len(files), err)
	}

	unsigned := buckettest.MemStore{}
	r.Uploader, r.Provenance = unsigned, nil
	if _, err := r.upload(context.Background(), sb, sb.Spec.Results, sb.Namespace); err == nil || !strings.Contains(err.Error(), "unsigned") || len(unsigned) != 0 {
		t.Fatalf("without a key: %v, %d objects uploaded", err, len(unsigned))
	}
}
