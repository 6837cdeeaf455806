package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// kubectlOrSkip is the kubectl built beside the envtest assets and a kubeconfig for it.
func kubectlOrSkip(t *testing.T) (kubectl, kubeconfig string) {
	t.Helper()
	kubectl = filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl beside the envtest assets (%v): hack/k8s-assets.sh builds one", err)
	}
	return kubectl, writeKubeconfig(t)
}

func runKubectl(t *testing.T, kubectl, kubeconfig string, args ...string) string {
	t.Helper()
	out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// A bench whose cell failed does not pass, rules or none; allowFailedCells passes it and
// says so; kubectl get shows the cells by outcome and the verdict.
func TestFailedCellsFailTheVerdictUnlessAllowed(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, tc := range []struct {
		name, node string
		allow      bool
		status     metav1.ConditionStatus
		reason     string
		message    string
	}{
		{"strict", "verdict-node-1", false, metav1.ConditionFalse, sbv1.ReasonCellsFailed,
			"1 of 2 cells failed: cell 1 (8000 B x 1 pair): failed after 1 attempt(s): client exited with code 1: spiral-dataplane: connect: connection refused"},
		{"lenient", "verdict-node-2", true, metav1.ConditionTrue, sbv1.ReasonFailedCellsAllowed,
			"allowFailedCells: 1 of 2 cells failed: cell 1 (8000 B x 1 pair): failed after 1 attempt(s): client exited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testNode(t, tc.node)
			sb := onTestNode(shortRun(sbtesting.MakeSpiralBench(tc.name, ns).Transport(sbv1.TransportTCP).Payloads(1000, 8000).Pairs(1), 1, 0).Obj(), tc.node)
			if tc.allow {
				sb.Spec.Acceptance = &sbv1.AcceptanceSpec{AllowFailedCells: true}
			}
			if err := k8sClient.Create(context.Background(), sb); err != nil {
				t.Fatal(err)
			}
			k := &kubeletStandIn{t: t, ns: ns, bench: tc.name, fate: func(cell, attempt int, role string) *podFate {
				if cell == 1 && role == cellpod.RoleClient {
					return &podFate{exitCode: 1, message: "spiral-dataplane: connect: connection refused"}
				}
				return nil
			}}
			sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)
			p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
			if p == nil || p.Status != tc.status || p.Reason != tc.reason || !strings.HasPrefix(p.Message, tc.message) {
				t.Errorf("Passed %+v, want %s %s %q", p, tc.status, tc.reason, tc.message)
			}
			if sb.Status.CellsSummary != "1/2 ok, 1 failed" {
				t.Errorf("cellsSummary %q", sb.Status.CellsSummary)
			}
			if kubectl, kubeconfig, ok := kubectlIfBuilt(t); ok {
				out := runKubectl(t, kubectl, kubeconfig, "get", "sb", tc.name, "-n", ns, "--no-headers")
				if !strings.Contains(out, "1/2 ok, 1 failed") || !strings.Contains(out, " "+string(tc.status)+" ") {
					t.Errorf("kubectl get shows the cells and the verdict: %q", out)
				}
			}
		})
	}
}

func kubectlIfBuilt(t *testing.T) (kubectl, kubeconfig string, ok bool) {
	kubectl = filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Logf("no kubectl beside the envtest assets: the kubectl checks are skipped")
		return "", "", false
	}
	return kubectl, writeKubeconfig(t), true
}

// Benches waiting for one node start in the order they were created, not in the order they
// happen to look at the node after it is released.
func TestQueuedBenchesStartInCreationOrder(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	node := "fifo-node-1"
	testNode(t, node)
	bench := func(name string) *sbv1.SpiralBench {
		return onTestNode(shortRun(sbtesting.MakeSpiralBench(name, ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), node)
	}
	if err := k8sClient.Create(context.Background(), bench("holder")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "holder holds the node", func() (bool, string) {
		h, _ := leaseHolder(node)
		return strings.HasPrefix(h, ns+"/holder/"), h
	})
	// Oldest first, one second apart (creation times have seconds); the names sort the other
	// way, so only creation order can explain the order they start in.
	names := []string{"zulu", "mike", "alpha"}
	for i, name := range names {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond)
		}
		if err := k8sClient.Create(context.Background(), bench(name)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 15*time.Second, "all three queued", func() (bool, string) {
		for _, name := range names {
			sb := &sbv1.SpiralBench{}
			if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sb); err != nil || sb.Status.Phase != sbv1.PhaseQueued {
				return false, name + " " + string(sb.Status.Phase)
			}
		}
		return true, ""
	})
	var holders []string
	eventually(t, 90*time.Second, "every bench to complete", func() (bool, string) {
		done := 0
		for _, name := range append([]string{"holder"}, names...) {
			(&kubeletStandIn{t: t, ns: ns, bench: name}).step()
			sb := &sbv1.SpiralBench{}
			_ = k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sb)
			if sb.Status.Phase == sbv1.PhaseCompleted {
				done++
			}
		}
		if h, ok := leaseHolder(node); ok {
			if who := strings.Split(h, "/")[1]; len(holders) == 0 || holders[len(holders)-1] != who {
				holders = append(holders, who)
			}
		}
		return done == 4, strings.Join(holders, ",")
	})
	if strings.Join(holders, ",") != "holder,zulu,mike,alpha" {
		t.Errorf("the node went to %v, want holder then creation order zulu, mike, alpha", holders)
	}
}

// kubectl describe of a 20-cell bench lists each cell's start once (it listed two: the step
// retaken on a stale cached read reported it again).
func TestDescribeOfATwentyCellBench(t *testing.T) {
	requireEnv(t)
	kubectl, kubeconfig := kubectlOrSkip(t)
	ns := newNamespace(t)
	testNode(t, "describe-node-1")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("twenty", ns).Transport(sbv1.TransportTCP).
		Payloads(1000, 2000, 4000, 8000, 16000).Pairs(1, 2, 4, 8), 1, 0).Obj(), "describe-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	sb = (&kubeletStandIn{t: t, ns: ns, bench: "twenty"}).runUntil(240*time.Second, sbv1.PhaseCompleted)
	if sb.Status.Cells.Succeeded != 20 {
		t.Fatalf("cells %+v", sb.Status.Cells)
	}
	// Events reach the apiserver asynchronously; wait for the last cell's start.
	var started int
	eventually(t, 20*time.Second, "20 CellStarted events", func() (bool, string) {
		var list eventsv1.EventList
		if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		started = 0
		for _, e := range list.Items {
			if e.Reason == "CellStarted" && e.Regarding.Name == "twenty" {
				started++
				if e.Series != nil && e.Series.Count > 1 {
					t.Errorf("%s reported %d times", e.Note, e.Series.Count)
				}
			}
		}
		return started == 20, strings.Repeat(".", started)
	})
	out := runKubectl(t, kubectl, kubeconfig, "describe", "sb", "twenty", "-n", ns)
	lines := strings.Count(out, "\n")
	t.Logf("kubectl describe of a 20-cell bench: %d lines", lines)
	if n := strings.Count(out, "CellStarted"); n != 20 {
		t.Errorf("describe lists %d CellStarted events, want one per cell (20)", n)
	}
	// Repeats are the attempt results' (kubectl get sbar), not the bench's: a cell's aggregate
	// takes about 25 lines, and the spec, conditions and events about 150 more.
	if strings.Contains(out, "Repeat Results") || lines > 20*30+200 {
		t.Errorf("describe prints every repeat or more than 30 lines a cell: %d lines", lines)
	}
	var records sbv1.SpiralBenchAttemptResultList
	if err := k8sClient.List(context.Background(), &records, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelAttemptBench: "twenty"}); err != nil || len(records.Items) != 20 {
		t.Errorf("one attempt result per cell: %d, %v", len(records.Items), err)
	}
}
