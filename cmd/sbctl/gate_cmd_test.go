package main

import (
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The gate end to end against the envtest apiserver and a real S3 server (versitygw,
// hack/s3-server.sh): no controller runs, so a goroutine plays the operator, writing a finished
// fixture's status once the gate created the bench; the signed run is uploaded with the
// operator's uploader.

// putRun uploads files under prefix in the test bucket and returns their s3:// URIs.
func putRun(t *testing.T, endpoint, prefix string, files map[string][]byte) []string {
	t.Helper()
	target := bucket.Target{Endpoint: endpoint, Bucket: s3Bucket, Region: "us-east-1", AccessKeyID: s3Key, SecretAccessKey: s3Secret}
	uris, err := (bucket.MinIO{}).Upload(context.Background(), target, prefix, files)
	if err != nil {
		t.Fatal(err)
	}
	return uris
}

// benchFile writes the spec of a fixture bench as a pipeline's bench.yaml.
func benchFile(t *testing.T, sb *sbv1.SpiralBench) string {
	t.Helper()
	obj := &sbv1.SpiralBench{TypeMeta: metav1.TypeMeta{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBench"},
		ObjectMeta: metav1.ObjectMeta{Name: sb.Name}, Spec: sb.Spec}
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// operate plays the operator: once a bench of that name (other than skip) exists, it writes
// status as a finished run, with the upload's conditions and artifacts when uris are given.
func operate(t *testing.T, ns, name string, skip types.UID, status sbv1.SpiralBenchStatus, uris []string) {
	t.Helper()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for ctx.Err() == nil {
			sb := &sbv1.SpiralBench{}
			err := k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, sb)
			if err != nil || sb.UID == skip {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			sb.Status = *status.DeepCopy()
			if uris != nil {
				now := metav1.Now()
				sb.Status.Artifacts = &sbv1.Artifacts{RunID: "20261124T030000Z-f1xture0", URIs: uris}
				sb.Status.Conditions = append(sb.Status.Conditions,
					metav1.Condition{Type: sbv1.ConditionResultsReady, Status: metav1.ConditionTrue, Reason: sbv1.ReasonResultsReachable, Message: "ok", LastTransitionTime: now},
					metav1.Condition{Type: sbv1.ConditionResultsUploaded, Status: metav1.ConditionTrue, Reason: sbv1.ReasonUploaded, Message: "uploaded", LastTransitionTime: now})
			}
			if err := k8sClient.Status().Update(ctx, sb); err != nil && !apierrors.IsConflict(err) {
				t.Errorf("status of %s: %v", name, err)
				return
			} else if err == nil {
				return
			}
		}
	}()
}

func gateCode(err error) int {
	var ec exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		return ec.code
	}
	return exitError
}

func TestGateCommandPassesAVerifiedRunAndFailsAnEditedOne(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	key := provenance.RandomKey()
	pem := keyFile(t, key)
	if testing.Short() {
		t.Skip("-short: starts an S3 server")
	}
	endpoint := s3Server(t)
	t.Setenv(envAccessKey, s3Key)
	t.Setenv(envSecretKey, s3Secret)
	run := fixture.TCPSweep("tcp-sweep", 1, false)
	file := benchFile(t, run)
	files := signedRun(t, key)
	uris := putRun(t, endpoint, "ci/"+ns+"/tcp-sweep/run-1/", files)

	dir := t.TempDir()
	junit, ctrf, download := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "ctrf.json"), filepath.Join(dir, "run")
	operate(t, ns, "tcp-sweep", "", run.Status, uris)
	out, err := sbctl(t, ns, "gate", "-f", file, "--key", pem, "--s3-endpoint", endpoint, "--timeout", "60s",
		"--junit", junit, "--ctrf", ctrf, "--download", download)
	if gateCode(err) != gatePass || !strings.Contains(out, "gate: PASS: "+ns+"/tcp-sweep passed (RulesHeld)") ||
		!strings.Contains(out, "Completed  cells 9/9 ok") || !strings.Contains(out, "OK    runs.csv") {
		t.Fatalf("exit %d: %v\n%s", gateCode(err), err, out)
	}
	if _, err := os.Stat(filepath.Join(download, "SIGNATURE.json")); err != nil {
		t.Errorf("--download keeps the run: %v", err)
	}
	var j readSuites
	if data, err := os.ReadFile(junit); err != nil || xml.Unmarshal(data, &j) != nil || j.Tests != 12 || j.Failures+j.Errors+j.Skipped != 0 {
		t.Errorf("junit.xml: %v %+v", err, j)
	}
	if _, err := os.Stat(ctrf); err != nil {
		t.Error(err)
	}

	// The same bench again: refused by name, then replaced; the bucket's runs.csv edited.
	out, err = sbctl(t, ns, "gate", "-f", file, "--key", pem, "--s3-endpoint", endpoint)
	if gateCode(err) != gateNoVerdict || !strings.Contains(out, "pass --replace") {
		t.Fatalf("an existing bench: exit %d\n%s", gateCode(err), out)
	}
	old := &sbv1.SpiralBench{}
	if err := k8sClient.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "tcp-sweep"}, old); err != nil {
		t.Fatal(err)
	}
	putRun(t, endpoint, "ci/"+ns+"/tcp-sweep/run-1/", map[string][]byte{"runs.csv": append(files["runs.csv"], "0,9,99999\n"...)})
	operate(t, ns, "tcp-sweep", old.UID, run.Status, uris)
	out, err = sbctl(t, ns, "gate", "-f", file, "--key", pem, "--s3-endpoint", endpoint, "--replace", "--timeout", "60s", "--junit", junit)
	if gateCode(err) != gateFail || !strings.Contains(out, "deleting spiralbench "+ns+"/tcp-sweep") ||
		!strings.Contains(out, "FAIL  runs.csv: sha256 differs") || !strings.Contains(out, "the results do not verify") {
		t.Fatalf("an edited run: exit %d\n%s", gateCode(err), out)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), `<testcase name="results signature"`) || !strings.Contains(string(data), "not as signed") {
		t.Errorf("junit.xml does not fail the signature:\n%s", data)
	}
}

// A bench that did not pass exits 1 whatever its upload; one that never finishes exits 2 at
// --timeout, with its reports written.
func TestGateCommandFailsAVerdictAndTimesOut(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	pem := keyFile(t, provenance.RandomKey())
	run := fixture.TCPSweep("failing", 1, true)
	operate(t, ns, "failing", "", run.Status, nil)
	out, err := sbctl(t, ns, "gate", "-f", benchFile(t, run), "--key", pem, "--timeout", "60s")
	if gateCode(err) != gateFail || !strings.Contains(out, "not passed (CellsFailed)") {
		t.Fatalf("exit %d\n%s", gateCode(err), out)
	}

	junit := filepath.Join(t.TempDir(), "junit.xml")
	out, err = sbctl(t, ns, "gate", "-f", benchFile(t, fixture.TCPSweep("never", 1, false)), "--key", pem, "--timeout", "2s", "--junit", junit)
	if gateCode(err) != gateNoVerdict || !strings.Contains(out, "timed out (--timeout)") {
		t.Fatalf("exit %d\n%s", gateCode(err), out)
	}
	if data, err := os.ReadFile(junit); err != nil || !strings.Contains(string(data), `name="bench finished"`) {
		t.Errorf("junit.xml after a timeout: %v\n%s", err, data)
	}
	if out, err := sbctl(t, ns, "gate", "--key", pem); gateCode(err) != gateNoVerdict || !strings.Contains(out, "needs -f") {
		t.Errorf("no -f: exit %d\n%s", gateCode(err), out)
	}
	if out, err := sbctl(t, ns, "gate", "-f", "x.yaml", "--no-such-flag"); gateCode(err) != gateNoVerdict {
		t.Errorf("a bad flag: exit %d\n%s", gateCode(err), out)
	}
}
