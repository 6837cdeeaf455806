package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// refusingBucket is an S3 endpoint that refuses every request as a bucket refuses a wrong key.
func refusingBucket(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied.</Message><Resource>` + r.URL.Path + `</Resource><RequestId>1</RequestId></Error>`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runSbctl runs the command tree without a cluster and returns its output and error text.
func runSbctl(args ...string) (string, error) {
	var out bytes.Buffer
	root := newRoot(&out, &out, "sbctl")
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// A refusal says which key was sent and from where, and what to set; never the secret. Each
// command that reads the bucket says it: get, report, compare (run ids and folders), verify.
func TestBucketRefusalNamesTheKeyAndWhereItCameFrom(t *testing.T) {
	endpoint := refusingBucket(t)
	const folder = "s3://spiralbench-results/default/tcp-sweep/20261125-2210-1a2b3c/"
	dir := t.TempDir()
	commands := map[string][]string{
		"get":             {"get", folder, "-o", filepath.Join(dir, "run")},
		"get run id":      {"get", "20261125-2210-1a2b3c", "--s3-bucket", "spiralbench-results", "-o", filepath.Join(dir, "run2")},
		"report":          {"report", folder, "-o", filepath.Join(dir, "report")},
		"compare":         {"compare", folder, folder},
		"compare run ids": {"compare", "run-a", "run-b", "--s3-bucket", "spiralbench-results"},
		"verify":          {"verify", folder}, // the bucket is read before the key
	}
	for _, c := range []struct {
		name        string
		env         map[string]string
		flag        bool
		want, never []string
	}{
		{name: "a key", flag: true, env: map[string]string{envAccessKey: "AKIDSBCTLTEST", envSecretKey: "s3cr3t-never-printed"},
			want:  []string{"Access Denied.", `refused access key id "AKIDSBCTLTEST" (from $AWS_ACCESS_KEY_ID, secret from $AWS_SECRET_ACCESS_KEY)`, "(from --s3-endpoint)", "set $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY"},
			never: []string{"s3cr3t-never-printed"}},
		{name: "no key", env: map[string]string{envAccessKey: "", envSecretKey: "", envS3Endpoint: endpoint},
			want: []string{"refused an unsigned request ($AWS_ACCESS_KEY_ID is not set)", "(from $SBCTL_S3_ENDPOINT)", "source build/stack.env"}},
		{name: "a key without its secret", flag: true, env: map[string]string{envAccessKey: "AKIDSBCTLTEST", envSecretKey: ""},
			want: []string{`access key id "AKIDSBCTLTEST" (from $AWS_ACCESS_KEY_ID) with no secret ($AWS_SECRET_ACCESS_KEY is not set)`}},
		{name: "only stack.sh's old names", flag: true, env: map[string]string{envAccessKey: "", envSecretKey: "", "S3_ACCESS_KEY": "spiralbench-test", "S3_SECRET_KEY": "old-secret"},
			want:  []string{"refused an unsigned request", "$S3_ACCESS_KEY is set, but sbctl reads $AWS_ACCESS_KEY_ID: export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY"},
			never: []string{"old-secret"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envS3Endpoint, "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			for name, args := range commands {
				if c.flag {
					args = append(args, "--s3-endpoint", endpoint)
				}
				out, err := runSbctl(args...)
				if err == nil {
					t.Fatalf("%s: no error from a refusing bucket\n%s", name, out)
				}
				msg := out + err.Error()
				for _, want := range append([]string{"the bucket at " + endpoint}, c.want...) {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: missing %q in:\n%s", name, want, msg)
					}
				}
				for _, never := range c.never {
					if strings.Contains(msg, never) {
						t.Errorf("%s: prints %q:\n%s", name, never, msg)
					}
				}
			}
		})
	}
}

// Other errors pass unexplained: a hint about keys on a missing object would mislead.
func TestBucketErrorsOtherThanRefusalsAreNotExplained(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`))
	}))
	defer srv.Close()
	t.Setenv(envAccessKey, "AKIDSBCTLTEST")
	out, err := runSbctl("report", "s3://bkt/ns/x/run/", "-o", t.TempDir(), "--s3-endpoint", srv.URL)
	if err == nil || strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing object: %v\n%s", err, out)
	}
}

// build/stack.env, as hack/stack.sh writes it, exports the names sbctl reads with the values of
// the stack's own S3_* names: after `source build/stack.env` sbctl reaches the demo's bucket.
func TestStackEnvExportsTheNamesSbctlReads(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("..", "..", "hack", "stack-env.sh"))
	show := `source <("$0" /k/config http://10.244.0.1:7070 /k8s/bin /repo) && ` +
		`echo "$S3_ENDPOINT|$` + envS3Endpoint + `|$S3_ACCESS_KEY|$` + envAccessKey + `|$S3_SECRET_KEY|$` + envSecretKey + `"`
	cmd := exec.Command("bash", "-c", show, script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "S3_ACCESS_KEY=lab-key", "S3_SECRET_KEY=lab-secret"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "http://10.244.0.1:7070|http://10.244.0.1:7070|lab-key|lab-key|lab-secret|lab-secret"; got != want {
		t.Fatalf("stack.env exports %q, want %q (S3_ENDPOINT|%s|S3_ACCESS_KEY|%s|S3_SECRET_KEY|%s)", got, want, envS3Endpoint, envAccessKey, envSecretKey)
	}
}
