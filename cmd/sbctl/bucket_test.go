package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/compare"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

const (
	s3Key    = "spiralbench-test"
	s3Secret = "spiralbench-test-secret"
	s3Bucket = "sbctl-test"
)

// s3Server starts a real S3 server (versitygw, hack/s3-server.sh) on a free port for this test.
func s3Server(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	script, _ := filepath.Abs(filepath.Join("..", "..", "hack", "s3-server.sh"))
	env := append(os.Environ(), "S3_PORT="+port, "S3_BUCKET="+s3Bucket, "S3_ACCESS_KEY="+s3Key, "S3_SECRET_KEY="+s3Secret)
	up := exec.Command(script, "up")
	up.Env = env
	out, err := up.Output()
	if err != nil {
		t.Fatalf("hack/s3-server.sh up: %v", err)
	}
	t.Cleanup(func() {
		down := exec.Command(script, "down")
		down.Env = env
		_ = down.Run()
	})
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// TestCompareAndReportFromTheBucket uploads two runs with the operator's uploader, then reads
// them back by s3:// folder and by run id, as a CI job without the benches would.
func TestCompareAndReportFromTheBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an S3 server")
	}
	endpoint := s3Server(t)
	before, after := fixture.TCPSweep("tcp-sweep", 1, false), fixture.TCPSweep("tcp-sweep", 1, true)
	after.UID = "f1xture1-tcp-sweep"
	target := bucket.Target{Endpoint: endpoint, Bucket: s3Bucket, Region: "us-east-1", AccessKeyID: s3Key, SecretAccessKey: s3Secret}
	for _, sb := range []*fixtureBench{{before}, {after}} {
		files, err := report.Files(sb.SpiralBench)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (bucket.MinIO{}).Upload(context.Background(), target, report.Prefix(sb.SpiralBench, "ci"), files); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", s3Key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	folder := "s3://" + s3Bucket + "/" + report.Prefix(before, "ci")

	out, err := sbctl(t, "default", "compare", folder, report.RunID(after), "--s3-endpoint", endpoint, "--s3-bucket", s3Bucket)
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != exitWorse || !strings.Contains(out, "A: bench/tcp-sweep@"+report.RunID(before)) || !strings.Contains(out, compare.FailedInB) {
		t.Errorf("compare from the bucket: %v\n%s", err, out)
	}
	if _, err := sbctl(t, "default", "compare", report.RunID(before), "no-such-run", "--s3-endpoint", endpoint, "--s3-bucket", s3Bucket); err == nil ||
		!strings.Contains(err.Error(), `no run "no-such-run"`) {
		t.Errorf("a missing run id: %v", err)
	}
	dir := t.TempDir()
	if out, err := sbctl(t, "default", "report", folder, "-o", dir, "--s3-endpoint", endpoint); err != nil {
		t.Fatalf("report from the bucket: %v\n%s", err, out)
	}
	if page, err := os.ReadFile(filepath.Join(dir, htmlreport.FileName)); err != nil || !strings.Contains(string(page), "bench/tcp-sweep") {
		t.Errorf("report.html from the bucket: %v", err)
	}
}

type fixtureBench struct{ *sbv1.SpiralBench }

// After `source build/stack.env` (hack/stack-env.sh) sbctl reads the demo's bucket with nothing
// more set; with a wrong key the real server's refusal names the key sbctl sent.
func TestGetFromTheBucketWithTheStackEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an S3 server")
	}
	endpoint := s3Server(t)
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Namespace = "default"
	files, err := report.Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	target := bucket.Target{Endpoint: endpoint, Bucket: s3Bucket, Region: "us-east-1", AccessKeyID: s3Key, SecretAccessKey: s3Secret}
	if _, err := (bucket.MinIO{}).Upload(context.Background(), target, report.Prefix(sb, ""), files); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "hack", "stack-env.sh"))
	show := exec.Command("bash", "-c", `source <("$0" /k/config "$1" /k8s/bin /repo) && printf '%s\n' "$`+envS3Endpoint+`" "$`+envAccessKey+`" "$`+envSecretKey+`"`, script, endpoint)
	show.Env = []string{"PATH=/usr/bin:/bin", "S3_ACCESS_KEY=" + s3Key, "S3_SECRET_KEY=" + s3Secret}
	out, err := show.Output()
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vars) != 3 {
		t.Fatalf("stack.env: %q", out)
	}
	for i, name := range []string{envS3Endpoint, envAccessKey, envSecretKey} {
		t.Setenv(name, vars[i])
	}
	folder := "s3://" + s3Bucket + "/" + report.Prefix(sb, "")
	if out, err := runSbctl("get", folder, "-o", t.TempDir()); err != nil || !strings.Contains(out, "  runs.csv\n") {
		t.Fatalf("get with stack.env's variables: %v\n%s", err, out)
	}
	for key, secret := range map[string]string{"not-a-key-of-this-bucket": s3Secret, s3Key: "a-wrong-secret"} {
		t.Setenv(envAccessKey, key)
		t.Setenv(envSecretKey, secret)
		_, err := runSbctl("get", folder, "-o", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), `refused access key id "`+key+`" (from $AWS_ACCESS_KEY_ID`) || strings.Contains(err.Error(), secret) {
			t.Errorf("key %s: %v", key, err)
		}
	}
}
