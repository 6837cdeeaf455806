package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `kubectl explain` against the real apiserver shows the documented fields of the spec.
func TestKubectlExplainShowsTheSpec(t *testing.T) {
	requireEnv(t)
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl beside the envtest assets (%v): hack/k8s-assets.sh builds one", err)
	}
	kubeconfig := writeKubeconfig(t)
	explain := func(path string) string {
		t.Helper()
		var out string
		// The apiserver publishes a new CRD's OpenAPI a moment after it is established.
		eventually(t, 30*time.Second, "kubectl explain "+path, func() (bool, string) {
			b, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "explain", path).CombinedOutput()
			out = string(b)
			return err == nil, out
		})
		return out
	}
	spec := explain("spiralbench.spec")
	for _, field := range []string{"transport", "topology", "matrix", "workload", "run", "acceptance", "results", "suspend", "ttlSecondsAfterFinished"} {
		if !strings.Contains(spec, field) {
			t.Errorf("kubectl explain spiralbench.spec lacks %q:\n%s", field, spec)
		}
	}
	if !strings.Contains(spec, "transport is the data path to measure") {
		t.Errorf("the field documentation is missing from explain:\n%s", spec)
	}
	matrix := explain("sb.spec.matrix.preset")
	if !strings.Contains(matrix, "preset fills the lists left empty") {
		t.Errorf("kubectl explain sb.spec.matrix.preset:\n%s", matrix)
	}
}

// writeKubeconfig writes the envtest client credentials as a kubeconfig for kubectl.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca := write("ca.crt", cfg.CAData)
	crt := write("client.crt", cfg.CertData)
	key := write("client.key", cfg.KeyData)
	kc := filepath.Join(dir, "kubeconfig")
	f, err := os.Create(kc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = io.WriteString(f, `apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster: {server: "`+cfg.Host+`", certificate-authority: "`+ca+`"}
users:
- name: envtest
  user: {client-certificate: "`+crt+`", client-key: "`+key+`"}
contexts:
- name: envtest
  context: {cluster: envtest, user: envtest}
current-context: envtest
`)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}
