package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/test/fleetscale"
)

// benchesDump writes n distinct benches, as fleet-scale.sh's dump would hold them, into a dir.
func benchesDump(t *testing.T, n int) string {
	t.Helper()
	l := sbv1.SpiralBenchList{}
	for i := range n {
		sb := sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fleet-r1-%08x", i), Namespace: "ns",
			Labels: map[string]string{sbv1.LabelFleet: "fleet", sbv1.LabelFleetStep: "tcp"}}}
		sb.Spec.Transport = sbv1.TransportTCP
		sb.Spec.Matrix.PayloadBytes = []int32{64, 1500, 9000}
		sb.Status.Nodes = []string{fmt.Sprintf("node-%05d", i)}
		sb.Status.Environment = &sbv1.Environment{Node: sb.Status.Nodes[0], Kernel: "6.11.0-1016-nvidia"}
		l.Items = append(l.Items, sb)
	}
	data, err := json.Marshal(&l)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "benches.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Each part taken away leaves less held, and the struct alone is the floor: the rows order
// as the table says, so a lever read from them is the size of what it removes.
func TestTakingAPartAwayHoldsLess(t *testing.T) {
	items, err := fleetscale.ReadDumped(filepath.Join(benchesDump(t, 2000), "benches.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, v := range variants[:5] {
		each, err := heapEach(items, v)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, each)
	}
	for i := 1; i < len(sizes); i++ {
		if sizes[i] >= sizes[i-1] {
			t.Errorf("%q holds %d B a bench, not less than %q's %d B", variants[i].name, sizes[i], variants[i-1].name, sizes[i-1])
		}
	}
	if sizes[len(sizes)-1] <= 0 {
		t.Errorf("an empty bench holds %d B", sizes[len(sizes)-1])
	}
}

func TestAFileNotDumpedIsRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := fleetscale.ReadDumped(filepath.Join(dir, "pods.json")); err == nil {
		t.Fatal("read a file fleet-scale.sh does not write")
	}
	if err := os.WriteFile(filepath.Join(dir, "nodes.json"), []byte(`{"items":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fleetscale.ReadDumped(filepath.Join(dir, "nodes.json")); err == nil {
		t.Fatal("an empty dump gave sizes")
	}
}
