package main

import (
	"bytes"
	"strings"
	"testing"
)

// `sbctl expect CLASS` needs no cluster: it prints every reference with its bound and source.
func TestExpectPrintsAClassWithTheSourceOfEachNumber(t *testing.T) {
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut, "sbctl")
	root.SetArgs([]string{"expect", "4xH200-NV18"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	s := out.String()
	for _, want := range []string{"class 4xH200-NV18", "NVLink between every GPU pair true", "nccl", "NCCLBusbwMBps", "353060", ">= 317754",
		"docs/benchmarks/nccl.md", "CopyH2DMBps"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	out.Reset()
	root = newRoot(&out, &errOut, "sbctl")
	root.SetArgs([]string{"expect", "cpu-only"})
	if err := root.Execute(); err != nil || !strings.Contains(out.String(), "do not apply") || !strings.Contains(out.String(), "no figure references") {
		t.Fatalf("%v:\n%s", err, out.String())
	}
}
