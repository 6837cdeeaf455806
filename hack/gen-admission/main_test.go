package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The generated file is what the generator makes of today's profiles and types (make verify
// checks the same, with the CRDs controller-gen makes of it).
func TestGeneratedFileIsCurrent(t *testing.T) {
	const file = "../../api/v1alpha1/zz_generated_admission.go"
	out := filepath.Join(t.TempDir(), "zz_generated_admission.go")
	if err := run(out, "../../api/v1alpha1"); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(out)
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is stale: run make generate manifests", file)
	}
}
