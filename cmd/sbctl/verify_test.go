package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// signedRun is a run's files as the operator uploads them, signed with key.
func signedRun(t *testing.T, key *provenance.Key) map[string][]byte {
	t.Helper()
	files, err := report.Files(fixture.TCPSweep("tcp-sweep", 1, false))
	if err != nil {
		t.Fatal(err)
	}
	files["plots/rx_gbps.svg"] = []byte("<svg/>")
	if err := key.Sign(files); err != nil {
		t.Fatal(err)
	}
	return files
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func keyFile(t *testing.T, key *provenance.Key) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "results-key.pem")
	if err := os.WriteFile(p, provenance.PublicPEM(key.Public()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// verify runs sbctl verify without a cluster; it returns the output and the exit status.
func verify(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	root := newRoot(&out, &out, "sbctl")
	root.SetArgs(append([]string{"verify"}, args...))
	err := root.ExecuteContext(context.Background())
	var ec exitCode
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ec):
		return out.String() + ec.msg, ec.code
	}
	return out.String() + err.Error(), exitError
}

func TestVerifyARunFolder(t *testing.T) {
	key := provenance.RandomKey()
	dir, pem := t.TempDir(), keyFile(t, key)
	writeFiles(t, dir, signedRun(t, key))
	out, code := verify(t, dir, "--key", pem)
	if code != 0 || !strings.Contains(out, "OK    runs.csv\n") || !strings.Contains(out, "OK    plots/rx_gbps.svg\n") ||
		!strings.Contains(out, "verified: all 7 files as signed (signed folders: 1)\n") || !strings.Contains(out, "key "+provenance.KeyID(key.Public())) {
		t.Fatalf("exit %d:\n%s", code, out)
	}

	runs := filepath.Join(dir, "runs.csv")
	data, _ := os.ReadFile(runs)
	if err := os.WriteFile(runs, append(data, []byte("0,9,99999\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = verify(t, dir, "--key", pem)
	if code != exitError || !strings.Contains(out, "FAIL  runs.csv: sha256 differs from the signed manifest\n") ||
		!strings.Contains(out, "OK    spec.json\n") || !strings.Contains(out, "FAILED: signed folders not verifying: 1 of 1;") {
		t.Fatalf("an edited runs.csv: exit %d:\n%s", code, out)
	}

	// Another install's key: the manifest fails, and no file is called OK.
	out, code = verify(t, dir, "--key", keyFile(t, provenance.RandomKey()))
	if code != exitError || !strings.Contains(out, "FAIL  SIGNATURE.json: signed by key") || strings.Contains(out, "OK ") {
		t.Fatalf("another key: exit %d:\n%s", code, out)
	}
}

func TestVerifyFindsEverySignedFolderBelow(t *testing.T) {
	key := provenance.RandomKey()
	dir, pem := t.TempDir(), keyFile(t, key)
	writeFiles(t, filepath.Join(dir, "bench", "tcp-sweep", "run-1"), signedRun(t, key))
	writeFiles(t, filepath.Join(dir, "bench", "tcp-sweep", "run-2"), signedRun(t, key))
	out, code := verify(t, dir, "--key", pem)
	if code != 0 || !strings.Contains(out, "OK    bench/tcp-sweep/run-2/runs.csv\n") || !strings.Contains(out, "(signed folders: 2)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	writeFiles(t, dir, map[string][]byte{"bench/notes.txt": []byte("mine")})
	out, code = verify(t, dir, "--key", pem)
	if code != exitError || !strings.Contains(out, "FAIL  bench/notes.txt: under no SIGNATURE.json\n") {
		t.Fatalf("an unsigned file: exit %d:\n%s", code, out)
	}
	empty := t.TempDir()
	writeFiles(t, empty, map[string][]byte{"runs.csv": []byte("a\n")})
	if out, code := verify(t, empty, "--key", pem); code != exitError || !strings.Contains(out, "no SIGNATURE.json below") {
		t.Fatalf("nothing signed: exit %d:\n%s", code, out)
	}
}

func TestVerifyUsageErrors(t *testing.T) {
	pem := keyFile(t, provenance.RandomKey())
	for _, args := range [][]string{
		{},
		{t.TempDir(), t.TempDir()},
		{filepath.Join(t.TempDir(), "absent"), "--key", pem},
		{t.TempDir(), "--key", filepath.Join(t.TempDir(), "absent.pem")},
		{t.TempDir(), "--no-such-flag"},
		{"s3://bucket/prefix/", "--key", pem, "--s3-endpoint", ""},
	} {
		if out, code := verify(t, args...); code != exitUsage {
			t.Errorf("sbctl verify %q: exit %d, want %d:\n%s", args, code, exitUsage, out)
		}
	}
}

// The key from the cluster, as a gate with a kubeconfig reads it.
func TestVerifyWithTheClustersKey(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	key := provenance.RandomKey()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: provenance.PublicKeyConfigMap},
		Data: map[string]string{provenance.PublicKeyFile: string(provenance.PublicPEM(key.Public()))}}
	if err := k8sClient.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, signedRun(t, key))
	if out, err := sbctl(t, "default", "verify", dir, "--operator-namespace", ns); err != nil || !strings.Contains(out, "ConfigMap "+ns+"/") {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := sbctl(t, "default", "verify", dir, "--operator-namespace", "default"); err == nil || !strings.Contains(err.Error(), "--key FILE") {
		t.Fatalf("no ConfigMap there: %v\n%s", err, out)
	}
}

func TestVerifyABucketPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an S3 server")
	}
	endpoint := s3Server(t)
	key := provenance.RandomKey()
	target := bucket.Target{Endpoint: endpoint, Bucket: s3Bucket, Region: "us-east-1", AccessKeyID: s3Key, SecretAccessKey: s3Secret}
	files := signedRun(t, key)
	if _, err := (bucket.MinIO{}).Upload(context.Background(), target, "ci/bench/tcp-sweep/run-1/", files); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", s3Key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	pem := keyFile(t, key)
	prefix := "s3://" + s3Bucket + "/ci/bench"
	if out, code := verify(t, prefix, "--key", pem, "--s3-endpoint", endpoint); code != 0 || !strings.Contains(out, "OK    tcp-sweep/run-1/runs.csv\n") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	edited := map[string][]byte{"runs.csv": append(files["runs.csv"], "0,9,99999\n"...)}
	if _, err := (bucket.MinIO{}).Upload(context.Background(), target, "ci/bench/tcp-sweep/run-1/", edited); err != nil {
		t.Fatal(err)
	}
	if out, code := verify(t, prefix, "--key", pem, "--s3-endpoint", endpoint); code != exitError ||
		!strings.Contains(out, "FAIL  tcp-sweep/run-1/runs.csv: sha256 differs from the signed manifest\n") {
		t.Fatalf("an edited runs.csv in the bucket: exit %d:\n%s", code, out)
	}
}
