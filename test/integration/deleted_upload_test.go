package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/report"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A bench deleted while it runs keeps what it measured: its first cell reaches the bucket as
// a signed partial run whose verdict says Deleted, before the bench goes.
func TestDeletingARunningBenchUploadsWhatItMeasured(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-del")
	endpoint := s3Server(t, "7091", "deleted")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: map[string]string{sbv1.LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("spiralbench-test"), "secretAccessKey": []byte("spiralbench-test-secret")}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("halfway", ns).Transport(sbv1.TransportTCP).Payloads(8000, 9000).Pairs(1), 1, 0).Obj(), "exec-node-del")
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: endpoint, Bucket: "deleted", Region: "us-east-1", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	// cell 0 measures; cell 1's pods never start
	k := &kubeletStandIn{t: t, ns: ns, bench: "halfway", fate: func(cell, _ int, _ string) *podFate {
		if cell == 1 {
			return &podFate{hang: true}
		}
		return nil
	}}
	eventually(t, 30*time.Second, "cell 0 measured, cell 1 running", func() (bool, string) {
		k.step()
		cur := &sbv1.SpiralBench{}
		_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur)
		a := cur.Status.ActiveAttempt
		return a != nil && a.CellIndex == 1, fmt.Sprintf("active %+v", a)
	})
	if err := k8sClient.Delete(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the bench gone", func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), &sbv1.SpiralBench{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	target := bucket.Target{Endpoint: endpoint, Bucket: "deleted", Region: "us-east-1", AccessKeyID: "spiralbench-test", SecretAccessKey: "spiralbench-test-secret"}
	keys, err := (bucket.MinIO{}).List(context.Background(), target, "")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var folder string
	for _, k := range keys {
		if path.Base(k) == report.VerdictFile {
			folder = path.Dir(k) + "/"
		}
	}
	for _, k := range keys {
		if folder != "" && strings.HasPrefix(k, folder) {
			if files[strings.TrimPrefix(k, folder)], err = (bucket.MinIO{}).Get(context.Background(), target, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if folder == "" {
		t.Fatalf("no run folder in the bucket: %v", keys)
	}
	if _, err := provenance.VerifyFiles(files, managerKey.Public()); err != nil {
		t.Errorf("the partial run does not verify: %v", err)
	}
	var v report.RecordedVerdict
	if err := json.Unmarshal(files[report.VerdictFile], &v); err != nil || v.Passed || v.Reason != benchctrl.ReasonDeleted || !strings.Contains(v.Message, "1 of 2 cells valid") {
		t.Errorf("verdict %+v (%v): want not passed, Deleted, 1 of 2 cells", v, err)
	}
	if runs := string(files["runs.csv"]); strings.Count(strings.TrimSpace(runs), "\n") != 1 {
		t.Errorf("runs.csv: want a header and cell 0's row:\n%s", runs)
	}
}
