package integration

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// manifest is a YAML file whose first line may say what admission must answer: "# want: ...".
// Further leading "# not: ..." lines name what the answer must not say (advice that another
// rule would refuse).
type manifest struct {
	path string
	want string
	not  []string
	obj  *unstructured.Unstructured
}

func readManifest(t *testing.T, path string) manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := manifest{path: path, obj: &unstructured.Unstructured{}}
	lines := bufio.NewScanner(bytes.NewReader(data))
	for first := true; lines.Scan(); first = false {
		line := strings.TrimSpace(lines.Text())
		if w, ok := strings.CutPrefix(line, "# want:"); ok && first {
			m.want = strings.TrimSpace(w)
		} else if n, ok := strings.CutPrefix(line, "# not:"); ok {
			m.not = append(m.not, strings.TrimSpace(n))
		} else {
			break
		}
	}
	if err := yaml.Unmarshal(data, &m.obj.Object); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readManifests(t *testing.T, glob string) []manifest {
	t.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest
	for _, p := range paths {
		if filepath.Base(p) == "kustomization.yaml" {
			continue
		}
		out = append(out, readManifest(t, p))
	}
	return out
}
