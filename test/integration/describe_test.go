package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// describeLinesPerCell bounds what `kubectl describe sb` prints for one finished socket cell:
// its coordinates, state, repeats and attempts, times, RX/TX/packet rate (mean and standard
// deviation), drops, spread and what bound it, one line each.
const describeLinesPerCell = 25

// `kubectl describe sb` of the demo's bench, against the real apiserver: each cell in a
// bounded number of lines, and no -1 where the data plane could not measure a share.
func TestDescribeBenchIsShort(t *testing.T) {
	requireEnv(t)
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl beside the envtest assets (%v): hack/k8s-assets.sh builds one", err)
	}
	kubeconfig := writeKubeconfig(t)
	ns := newNamespace(t)
	done := demoSweep(ns)
	sb := done.DeepCopy()
	sb.ResourceVersion, sb.UID, sb.Status = "", "", sbv1.SpiralBenchStatus{}
	sb.Spec.Suspend = ptr.To(true)
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	var section []string
	eventually(t, 30*time.Second, "kubectl describe sb", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return false, err.Error()
		}
		before := cur.DeepCopy()
		cur.Status = done.Status
		if err := k8sClient.Status().Patch(context.Background(), cur, client.MergeFrom(before)); err != nil {
			return false, "status: " + err.Error()
		}
		b, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "describe", "sb", "-n", ns, sb.Name).CombinedOutput()
		if err != nil {
			return false, string(b)
		}
		t.Logf("kubectl describe sb: %d lines", strings.Count(string(b), "\n"))
		section = cellResultsSection(string(b))
		return len(section) > 0, string(b)
	})
	cells := len(done.Status.CellResults)
	text := strings.Join(section, "\n")
	t.Logf("Cell Results: %d lines for %d cells\n%s", len(section), cells, text)
	if per := float64(len(section)) / float64(cells); per > describeLinesPerCell {
		t.Errorf("Cell Results: %.1f lines a cell, want at most %d", per, describeLinesPerCell)
	}
	if m := regexp.MustCompile(`(?m):\s+-1$`).FindString(text); m != "" {
		t.Errorf("Cell Results print an unknown as -1 (%q)", m)
	}
	// The detail is there, not dropped: every cell's payload and its RX rate.
	for _, want := range []string{"Payload Bytes:", "Rx Mbps:", "Bound By:"} {
		if n := strings.Count(text, want); n != cells {
			t.Errorf("%q appears %d times, want once for each of %d cells", want, n, cells)
		}
	}
}

// demoSweep is the demo's tcp-sweep as it finishes on a node that lacks the sample's pinned
// cores: the fixture's numbers, each busy share unknown (-1, as the data plane reports a core
// it cannot read) and boundBy as the controller writes it.
func demoSweep(ns string) *sbv1.SpiralBench {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Namespace = ns
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		c.CPU = &sbv1.CPUBusy{MasterMilliPercent: -1, TXMilliPercent: -1, RXMilliPercent: -1}
		c.BoundBy = explain.Cell(sb, c).Short()
		if len(c.BoundBy) > 160 {
			c.BoundBy = c.BoundBy[:160]
		}
	}
	return sb
}

// cellResultsSection is the lines under "Cell Results:" in kubectl describe's output.
func cellResultsSection(out string) []string {
	lines := strings.Split(out, "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for i, l := range lines {
		if strings.TrimSpace(l) != "Cell Results:" {
			continue
		}
		var section []string
		for _, m := range lines[i+1:] {
			if indent(m) <= indent(l) {
				break
			}
			section = append(section, m)
		}
		return section
	}
	return nil
}
