// Package contract holds the operator's tables and rendered flags to the data plane's own: it
// runs the real spiral-dataplane binary (--describe-kinds, --check-args). The binary is
// build/dataplane/spiral-dataplane (make dataplane), or $SPIRAL_DATAPLANE; make test-dataplane
// sets that, so a missing binary fails there and only skips a plain go test on a machine that
// has not built the data plane.
package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// dataplaneBinary returns the binary's path, skipping the test when it was not built.
func dataplaneBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SPIRAL_DATAPLANE"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("SPIRAL_DATAPLANE=%s: %v", p, err)
		}
		return p
	}
	p, _ := filepath.Abs("../../build/dataplane/spiral-dataplane")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no data plane binary at %s (make dataplane DATAPLANE_TARGETS=spiral-dataplane, or set SPIRAL_DATAPLANE)", p)
	}
	// A binary left from an older checkout (make test-go runs before make test-dataplane
	// rebuilds it) is skipped, not judged; SPIRAL_DATAPLANE, as make test-dataplane sets it, is.
	if err := exec.Command(p, "--describe-kinds").Run(); err != nil {
		t.Skipf("%s predates --describe-kinds (%v): rebuild it with make dataplane", p, err)
	}
	return p
}

// dataplaneKind is one entry of spiral-dataplane --describe-kinds.
type dataplaneKind struct {
	Name                 string              `json:"name"`
	Backend              string              `json:"backend"`
	DropsKind            string              `json:"drops_kind"`
	DAQIRICountsReceiver bool                `json:"daqiri_counts_receiver"`
	Sequenced            bool                `json:"sequenced"`
	SocketRetrans        bool                `json:"socket_retrans"`
	RepeatsInOneProcess  bool                `json:"repeats_in_one_process"`
	RateSearch           bool                `json:"rate_search"`
	MultiLink            bool                `json:"multi_link"`
	RunMode              string              `json:"run_mode"`
	Flags                []string            `json:"flags"`
	Vocabulary           map[string][]string `json:"vocabulary"`
}

// described is what spiral-dataplane --describe-kinds prints.
type described struct {
	CUDA  bool            `json:"cuda"`
	Kinds []dataplaneKind `json:"kinds"`
}

func describe(t *testing.T) described {
	t.Helper()
	out, err := exec.Command(dataplaneBinary(t), "--describe-kinds").Output()
	if err != nil {
		t.Fatalf("spiral-dataplane --describe-kinds: %v", err)
	}
	var d described
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("--describe-kinds printed no JSON: %v\n%s", err, out)
	}
	return d
}

func describeKinds(t *testing.T) map[string]dataplaneKind {
	t.Helper()
	d := describe(t)
	kinds := map[string]dataplaneKind{}
	for _, k := range d.Kinds {
		kinds[k.Name] = k
	}
	if len(kinds) < 6 {
		t.Fatalf("--describe-kinds lists %d kinds: %+v", len(kinds), d)
	}
	return kinds
}

// checkArgs runs the data plane's own parser on one argument list: nil when it accepts it. A
// flag value env:NAME is read from the container's environment, where a device plugin puts a
// PCI address; the command gets one for each.
func checkArgs(t *testing.T, binary string, args []string) error {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{}, args...), "--check-args")...)
	cmd.Env = os.Environ()
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "env:"); ok {
			cmd.Env = append(cmd.Env, name+"=0000:01:00.0")
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return &refusal{err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return nil
}

type refusal struct {
	err    error
	stderr string
}

func (r *refusal) Error() string { return r.err.Error() + ": " + r.stderr }

// crd reads the generated SpiralBench CRD.
func crd(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile("../../config/crd/bases/spiralbench.io_spiralbenches.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// enumOf is the CRD's enum of a field under spec ("nccl", "dataType").
func enumOf(t *testing.T, c *apiextensionsv1.CustomResourceDefinition, path ...string) []string {
	t.Helper()
	s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for _, p := range path {
		next, ok := s.Properties[p]
		if !ok {
			t.Fatalf("the CRD has no spec.%s", strings.Join(path, "."))
		}
		s = next
	}
	var out []string
	for _, v := range s.Enum {
		var str string
		if err := json.Unmarshal(v.Raw, &str); err != nil {
			t.Fatal(err)
		}
		out = append(out, str)
	}
	if len(out) == 0 {
		t.Fatalf("spec.%s has no enum", strings.Join(path, "."))
	}
	return out
}

func sorted(xs []string) string {
	ys := append([]string{}, xs...)
	sort.Strings(ys)
	return strings.Join(ys, ",")
}
