package bucket

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// versitygw is the project's own S3 server (hack/s3-server.sh builds it into the cache).
func versitygw(t *testing.T, accessKey, secretKey string) string {
	t.Helper()
	cache := os.Getenv("SPIRALBENCH_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "spiralbench")
	}
	bin := filepath.Join(cache, "versitygw-v1.8.0", "versitygw")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no versitygw at %s: run hack/s3-server.sh build", bin)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--port", addr, "--region", "us-east-1", "--health", "/health", "posix", t.TempDir())
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+accessKey, "ROOT_SECRET_KEY="+secretKey)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	endpoint := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(endpoint + "/health"); err == nil {
			resp.Body.Close()
			break
		}
		if i == 100 {
			t.Fatalf("versitygw did not answer on %s", endpoint)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return endpoint
}

// Against a real S3 server: the right credentials upload every file; a wrong secret or an
// unknown key id gets the server's 403 into the error, never the credentials.
func TestUploadToVersitygw(t *testing.T) {
	endpoint := versitygw(t, keyID, secret)
	files := map[string][]byte{"results.json": []byte(`{"cells":1}`), "runs.csv": []byte("a,b\n1,2\n")}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uris, err := MinIO{}.Upload(ctx, Target{Endpoint: endpoint, Bucket: "results", Region: "us-east-1",
		AccessKeyID: keyID, SecretAccessKey: secret}, "ns/bench/run", files)
	if err != nil {
		t.Fatalf("upload with the right credentials: %v", err)
	}
	if fmt.Sprint(uris) != "[s3://results/ns/bench/run/results.json s3://results/ns/bench/run/runs.csv]" {
		t.Errorf("uris: %v", uris)
	}
	for name, tgt := range map[string]Target{
		"wrong secret":   {AccessKeyID: keyID, SecretAccessKey: "wJalrXUtnFEMI/not+the+secret"},
		"unknown key id": {AccessKeyID: "AKIDUNKNOWNTOTHESERVER", SecretAccessKey: secret},
	} {
		tgt.Endpoint, tgt.Bucket, tgt.Region = endpoint, "results", "us-east-1"
		_, err := MinIO{}.Upload(ctx, tgt, "ns/bench/run2", files)
		if err == nil {
			t.Fatalf("%s: upload succeeded", name)
		}
		msg := err.Error()
		for _, leak := range []string{tgt.AccessKeyID, tgt.SecretAccessKey, "wJalrXUtnFEMI"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: error holds %q: %s", name, leak, msg)
			}
		}
		if !strings.Contains(msg, "bucket results") {
			t.Errorf("%s: the error should say what failed: %s", name, msg)
		}
		t.Logf("%s: %s", name, msg)
	}
}
