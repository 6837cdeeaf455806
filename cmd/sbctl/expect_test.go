package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// `sbctl expect` alone lists every class: what it matches and where its numbers come from, each
// source a page anyone can read (a document of this repository or a public address).
func TestExpectWithoutAnArgumentListsTheCatalog(t *testing.T) {
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut, "sbctl")
	root.SetArgs([]string{"expect"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	s := out.String()
	for _, want := range []string{"CLASS  ", "MATCHES NODES REPORTING", "NUMBERS FROM",
		`4xH200-NV18         gpuModel "H200", gpuCount 4  5        docs/benchmarks/gpucopy.md, docs/benchmarks/nccl.md,`,
		`DGX-Spark-GB10-CX7  gpuModel "GB10", gpuCount 1  4        https://github.com/NVIDIA/daqiri/blob/`,
		"cpu-only            no GPU                       0        no figures"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	// Every class's whole sources, as `sbctl expect CLASS` prints them.
	for _, class := range []string{"4xH200-NV18", "2xH200-NV18", "DGX-Spark-GB10-CX7"} {
		out.Reset()
		root = newRoot(&out, &errOut, "sbctl")
		root.SetArgs([]string{"expect", class})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		s += out.String()
	}
	for _, internal := range []string{"../", "seeds/", "shared/"} {
		if strings.Contains(s, internal) {
			t.Errorf("a source names a path outside the repository (%q):\n%s", internal, s)
		}
	}
	if !strings.Contains(s, "DAQIRI documentation, 'Performance: DGX Spark'") {
		t.Errorf("the Spark class does not name DAQIRI's page:\n%s", s)
	}
}

// A user's catalog may cite a source that is no document: the listing shows it whole.
func TestExpectListsASourceWithoutADocumentWhole(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.yaml")
	doc := "version: 1\nclasses:\n- {name: lab-a, match: {gpuModel: L40S}, references: [{step: tcp, figure: RxMbps, expected: 90000, tolerancePercent: 5, source: our lab run of 2026-11-02}]}\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut, "sbctl")
	root.SetArgs([]string{"expect", "--catalog", file})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if want := `lab-a  gpuModel "L40S"          1        our lab run of 2026-11-02`; !strings.Contains(out.String(), want) {
		t.Fatalf("missing %q in:\n%s", want, out.String())
	}
}

// `sbctl expect NODE` reads the node from the cluster through sbctl's own client, as on a real
// cluster: the node's labels and allocatable GPUs pick the class, else its verdict-class label.
func TestExpectMatchesANodeOfTheCluster(t *testing.T) {
	requireEnv(t)
	ns := namespace(t) // unique, so the cluster-scoped nodes are too
	ctx := context.Background()
	node := func(name string, labels map[string]string, gpus int64) {
		t.Helper()
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		if err := k8sClient.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(ctx, n) })
		if gpus > 0 {
			n.Status.Allocatable = corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
			if err := k8sClient.Status().Update(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	node(ns+"-h200", map[string]string{"nvidia.com/gpu.product": "NVIDIA-H200"}, 4)
	node(ns+"-cpu", nil, 0)
	node(ns+"-judged", map[string]string{"spiralbench.io/verdict-class": "2xH200-NV18"}, 0)
	node(ns+"-a10", map[string]string{"nvidia.com/gpu.product": "NVIDIA-A10"}, 1)
	for name, want := range map[string]string{
		ns + "-a10": "node " + ns + `-a10 reports 1 x "NVIDIA-A10", no NIC facts: no class of the catalog matches, so a fleet judges it ` +
			"against its own hardware (class derived-from-hardware):\neach passed step's RxMbps, CopyH2DMBps, CopyD2HMBps and NCCLBusbwMBps must reach 0.70",
		ns + "-h200":   "node " + ns + "-h200 is class 4xH200-NV18, matched by its node object",
		ns + "-cpu":    "node " + ns + "-cpu is class cpu-only, matched by its node object",
		ns + "-judged": "node " + ns + "-judged is class 2xH200-NV18, matched by its verdict-class label",
	} {
		out, err := sbctl(t, ns, "expect", name)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("expect %s: %v, want %q in:\n%s", name, err, want, out)
		}
	}
	if out, err := sbctl(t, ns, "expect", ns+"-missing"); err == nil || !strings.Contains(err.Error(), "neither a class of the catalog nor a node") {
		t.Errorf("a missing node: %v\n%s", err, out)
	}
}
