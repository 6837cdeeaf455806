package main

import (
	"bytes"
	"os"
	"path/filepath"
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
	for _, want := range []string{"class 4xH200-NV18", `matches nodes reporting: gpuModel "H200", gpuCount 4`, "NVLink between every GPU pair true", "nccl", "NCCLBusbwMBps", "353060", ">= 317754",
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

// A class keyed on the NIC's firmware and PCI id shows those keys with the others.
func TestExpectShowsNICFirmwareMatchKeys(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.yaml")
	doc := "version: 1\nclasses:\n- {name: spark-fw, description: a Spark on firmware 28.39, match: {gpuModel: GB10, nicDriver: mlx5_core, nicSpeedMbps: 200000, nicFirmware: \"28.39\", nicPCIID: \"15b3:1021\"}, references: []}\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut, "sbctl")
	root.SetArgs([]string{"expect", "spark-fw", "--catalog", file})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if want := `matches nodes reporting: gpuModel "GB10", nicDriver mlx5_core, nicSpeedMbps 200000, nicFirmware "28.39", nicPCIID 15b3:1021`; !strings.Contains(out.String(), want) {
		t.Fatalf("missing %q in:\n%s", want, out.String())
	}
}
