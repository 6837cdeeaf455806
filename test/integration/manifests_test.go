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
type manifest struct {
	path string
	want string
	obj  *unstructured.Unstructured
}

func readManifest(t *testing.T, path string) manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := manifest{path: path, obj: &unstructured.Unstructured{}}
	first, _ := bufio.NewReader(bytes.NewReader(data)).ReadString('\n')
	if w, ok := strings.CutPrefix(strings.TrimSpace(first), "# want:"); ok {
		m.want = strings.TrimSpace(w)
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
