package integration

import (
	"context"
	"fmt"
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
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// `kubectl describe sb` against the real apiserver, of the demo's bench and of a raw
// queue-scaling bench: at most 15 lines a cell (the headline cell has one more, its marker),
// and no -1 where the data plane could not measure a share. A cell's lines are its coordinates,
// state, repeats and attempts, times, RX rate (mean and standard deviation), drops and what
// bound it; the figures derived from the repeats (TX, packet rate, loss, busy shares, spread)
// are not stored in the bench, so they cost describe no line.
func TestDescribeBenchIsShort(t *testing.T) {
	requireEnv(t)
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl beside the envtest assets (%v): hack/k8s-assets.sh builds one", err)
	}
	kubeconfig := writeKubeconfig(t)
	ns := newNamespace(t)
	for _, c := range []struct {
		done    *sbv1.SpiralBench
		perCell int
	}{
		{demoSweep(ns), 15},
		{withBoundBy(fixture.RawQueueCounted("raw-queue-scaling"), ns), 15},
	} {
		section, whole := describeCells(t, kubectl, kubeconfig, c.done)
		cells := len(c.done.Status.CellResults)
		text := strings.Join(section, "\n")
		t.Logf("%s: Cell Results %d lines for %d cells", c.done.Name, len(section), cells)
		for i, lines := range splitCells(section) {
			if len(lines) > c.perCell+strings.Count(strings.Join(lines, "\n"), "Headline:") {
				t.Errorf("%s: cell %d is %d lines, want at most %d (and the headline's marker)\n%s",
					c.done.Name, i, len(lines), c.perCell, strings.Join(lines, "\n"))
			}
		}
		if m := regexp.MustCompile(`(?m):\s+-1$`).FindString(text); m != "" {
			t.Errorf("%s: Cell Results print an unknown as -1 (%q)", c.done.Name, m)
		}
		// The detail is there, not dropped: every cell's payload, RX rate and bound.
		for _, want := range []string{"Payload Bytes:", "Rx Mbps:", "Bound By:"} {
			if n := strings.Count(text, want); n != cells {
				t.Errorf("%s: %q appears %d times, want once for each of %d cells", c.done.Name, want, n, cells)
			}
		}
		// What every cell shares is said once, for the bench: its wire verdict and how many
		// cells are noisy (the NoisyCell events name them).
		if w := c.done.Status.Wire; w != "" {
			line := regexp.MustCompile(`(?m)^  Wire:\s+` + string(w) + `$`)
			if n := strings.Count(whole, "Wire:"); n != 1 || !line.MatchString(whole) {
				t.Errorf("%s: want the bench's wire verdict %s on one line of status, found %d lines with Wire:", c.done.Name, w, n)
			}
		}
		if noisy := c.done.Status.Cells.Noisy; noisy > 0 && !regexp.MustCompile(fmt.Sprintf(`(?m)^\s+Noisy:\s+%d$`, noisy)).MatchString(whole) {
			t.Errorf("%s: want the count of %d noisy cells in the bench's cells", c.done.Name, noisy)
		}
	}
}

// describeCells creates done's bench (suspended), writes done's status and returns the lines
// under "Cell Results:" of kubectl describe.
func describeCells(t *testing.T, kubectl, kubeconfig string, done *sbv1.SpiralBench) (section []string, whole string) {
	t.Helper()
	sb := done.DeepCopy()
	sb.ResourceVersion, sb.UID, sb.Status = "", "", sbv1.SpiralBenchStatus{}
	sb.Spec.Suspend = ptr.To(true)
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "kubectl describe sb "+sb.Name, func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return false, err.Error()
		}
		before := cur.DeepCopy()
		cur.Status = done.Status
		if err := k8sClient.Status().Patch(context.Background(), cur, client.MergeFrom(before)); err != nil {
			return false, "status: " + err.Error()
		}
		b, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "describe", "sb", "-n", sb.Namespace, sb.Name).CombinedOutput()
		if err != nil {
			return false, string(b)
		}
		t.Logf("kubectl describe sb %s: %d lines", sb.Name, strings.Count(string(b), "\n"))
		section, whole = cellResultsSection(string(b)), string(b)
		return len(section) > 0, string(b)
	})
	return section, whole
}

// demoSweep is the demo's tcp-sweep as it finishes on the local cluster: the fixture's
// numbers, each busy share unknown (-1, as the data plane reports a core it cannot read), no
// repeat's bytes verifiable on the wire (the pod network's veth has no PHY counters), the
// 1000 B cells' repeats spread beyond the noisy threshold, and boundBy as the controller
// writes it.
func demoSweep(ns string) *sbv1.SpiralBench {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		for j := range c.RepeatResults {
			r := &c.RepeatResults[j]
			r.CPU = &sbv1.CPUBusy{MasterMilliPercent: -1, TXMilliPercent: -1, RXMilliPercent: -1}
			r.Wire = &sbv1.WireProof{Verdict: sbv1.WireUnverified, Note: "eth0: no tx_bytes_phy"}
			if c.Parameters.PayloadBytes == 1000 {
				r.RXMbps = r.RXMbps * int64(2+j) / 3 // 67 %, 100 %, 133 %: a 33 % spread
			}
		}
		aggregate.Fill(c)
		aggregate.FlagNoisy(c, sb.Spec.Run.NoisySpreadPercent)
	}
	acceptance.Count(&sb.Status)
	if sb.Status.Wire != sbv1.WireUnverified || sb.Status.Cells.Noisy != 3 {
		panic(fmt.Sprintf("demoSweep: wire %q, %d noisy cells; want Unverified and 3", sb.Status.Wire, sb.Status.Cells.Noisy))
	}
	return withBoundBy(sb, ns)
}

// withBoundBy moves sb to ns and gives its cells their boundBy as the controller writes it.
func withBoundBy(sb *sbv1.SpiralBench, ns string) *sbv1.SpiralBench {
	sb.Namespace = ns
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		if c.BoundBy = explain.Cell(sb, c).Short(); len(c.BoundBy) > 160 {
			c.BoundBy = c.BoundBy[:160]
		}
	}
	return sb
}

// splitCells cuts the Cell Results section into its cells: each starts with attempts, the
// first of a cell's fields in kubectl's order and one every cell has.
func splitCells(section []string) [][]string {
	var cells [][]string
	for _, l := range section {
		if strings.HasPrefix(strings.TrimSpace(l), "Attempts:") || len(cells) == 0 {
			cells = append(cells, nil)
		}
		cells[len(cells)-1] = append(cells[len(cells)-1], l)
	}
	return cells
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
