// Package e2e runs SpiralBenches on a real single-node cluster (kubelet + containerd) with
// the operator installed by Helm, the real data plane in the cell pods and a real S3 server
// (versitygw). `make test-e2e` brings the stack up with hack/stack.sh, runs these tests and
// tears it down; without the stack (SPIRALBENCH_E2E_ENV unset) every test skips and says why.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
)

var (
	k8s        client.Client
	skipReason string
	repoRoot   = "../.."
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBECONFIG") == "" || os.Getenv("S3_ENDPOINT") == "" {
		skipReason = "no e2e stack: run `make test-e2e` (hack/stack.sh up brings up the cluster, S3 and the operator)"
		os.Exit(m.Run())
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = sbv1.AddToScheme(scheme)
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func requireStack(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// namespace creates a namespace with the bucket credentials Secret in it.
func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	// As docs/api.md asks of a namespace made after the chart was installed: a Role that lets
	// the manager get its Secrets, and a Secret labelled as opted in for uploads.
	manager := envOr("SPIRALBENCH_RELEASE", "spiralbench") + "-manager"
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "spiralbench-credentials", Namespace: ns.Name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "spiralbench-credentials", Namespace: ns.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: manager, Namespace: envOr("SPIRALBENCH_NAMESPACE", "spiralbench-system")}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns.Name,
		Labels: map[string]string{"spiralbench.io/credentials": "true"}}, StringData: map[string]string{
		"accessKeyID": os.Getenv("S3_ACCESS_KEY"), "secretAccessKey": os.Getenv("S3_SECRET_KEY"),
	}}
	for _, o := range []client.Object{role, binding, secret} {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if !t.Failed() {
			_ = k8s.Delete(context.Background(), ns)
		}
	})
	return ns.Name
}

func results() *sbv1.ResultsSpec {
	return &sbv1.ResultsSpec{Endpoint: os.Getenv("S3_ENDPOINT"), Bucket: os.Getenv("S3_BUCKET"), Prefix: "e2e",
		Region: "us-east-1", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
}

// waitFor polls a bench until cond holds.
func waitFor(t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*sbv1.SpiralBench) bool) *sbv1.SpiralBench {
	t.Helper()
	deadline := time.Now().Add(timeout)
	sb := &sbv1.SpiralBench{}
	for {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sb)
		if err == nil && cond(sb) {
			// with each attempt's repeats, as reports and sbctl read them
			if err := attempts.Load(context.Background(), k8s, sb, attempts.Owned(sb)); err != nil {
				t.Fatal(err)
			}
			return sb
		}
		if time.Now().After(deadline) {
			dump(t, ns)
			t.Fatalf("%s/%s: timed out after %s waiting for %s; phase %s progress %s conditions %+v", ns, name, timeout, what,
				sb.Status.Phase, sb.Status.Progress, sb.Status.Conditions)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func dump(t *testing.T, ns string) {
	for _, args := range [][]string{{"get", "pods", "-A", "-o", "wide"}, {"-n", ns, "get", "events", "--sort-by=.lastTimestamp"},
		{"-n", "spiralbench-system", "logs", "deployment/spiralbench-manager", "--tail=40"}} {
		out, _ := exec.Command("kubectl", args...).CombinedOutput()
		t.Logf("kubectl %s:\n%s", strings.Join(args, " "), out)
	}
}

// object reads an object from the results bucket.
func object(t *testing.T, key string) []byte {
	t.Helper()
	endpoint := strings.TrimPrefix(os.Getenv("S3_ENDPOINT"), "http://")
	c, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(os.Getenv("S3_ACCESS_KEY"), os.Getenv("S3_SECRET_KEY"), ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := c.GetObject(context.Background(), os.Getenv("S3_BUCKET"), key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, obj); err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return buf.Bytes()
}

// s3 runs hack/s3-server.sh with the stack's settings.
func s3(t *testing.T, verb string) {
	t.Helper()
	cmd := exec.Command(repoRoot+"/hack/s3-server.sh", verb)
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("s3-server.sh %s: %v\n%s", verb, err, out)
	}
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
