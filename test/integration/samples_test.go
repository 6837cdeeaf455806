package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// waitAccepted waits for the controller to accept and plan a bench and checks its status.
func waitAccepted(t *testing.T, ns, name string, wantCells int32) *sbv1.SpiralBench {
	t.Helper()
	sb := &sbv1.SpiralBench{}
	eventually(t, 20*time.Second, name+" Accepted", func() (bool, string) {
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sb); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionAccepted)
		return c != nil && c.Status == metav1.ConditionTrue && sb.Status.ObservedGeneration == sb.Generation,
			fmt.Sprintf("conditions %+v", sb.Status.Conditions)
	})
	if sb.Status.Cells.Total != wantCells {
		t.Errorf("%s: status.cells.total = %d, want %d", name, sb.Status.Cells.Total, wantCells)
	}
	if want := fmt.Sprintf("0/%d", wantCells); sb.Status.Progress != want {
		t.Errorf("%s: status.progress = %q, want %q", name, sb.Status.Progress, want)
	}
	// No node in these namespaces' tests is Ready, so an accepted bench waits: Pending, or
	// Queued once it has looked for a node.
	if sb.Status.Phase != sbv1.PhasePending && sb.Status.Phase != sbv1.PhaseQueued {
		t.Errorf("%s: phase = %q, want Pending or Queued while no node can take it", name, sb.Status.Phase)
	}
	if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionRunning); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("%s: want Running=False while waiting, got %+v", name, c)
	}
	return sb
}

// Every sample is admitted and planned into the cells of the DAQIRI table it reproduces.
func TestSamplesAreAcceptedAndPlanned(t *testing.T) {
	requireEnv(t)
	ns := privilegedNamespace(t) // nccl-sendrecv uses the host network (docs/security.md)
	want := map[string]int32{
		"tcp-sweep":                9,  // 3 sizes x 3 pair counts
		"udp-sweep":                6,  // 2 sizes x 3 pair counts
		"udp-drop-curve":           16, // 2 sizes x 8 targets
		"tcp-drop-curve":           8,  // 8 targets, per pair
		"raw-sweep":                20, // 5 payloads x 4 batches
		"raw-queue-scaling":        20, // 4 queue cells x 5 payloads
		"udp-gpu-workloads":        4,  // none, fft, gemm, gemm_fp16
		"roce-sweep":               5,  // 5 message sizes
		"roce-gemm-batch-sweep":    5,  // 5 workload batches
		"nccl-all-gather":          1,  // one cell: the size sweep runs inside it
		"nccl-sendrecv":            1,
		"nccl-alltoallv":           1,
		"gpucopy":                  1,
		"raw-gpu-workloads":        4,  // 8000 B x batch 10240: none, fft, gemm, gemm_fp16
		"raw-workload-batch-sweep": 5,  // gemm_fp16 x 5 workload batches
		"raw-forward-packet-size":  10, // 5 payloads x 2 memories (l2fwd-nv table 1)
		"raw-forward-burst":        12, // 4 bursts x 3 GPU work modes (l2fwd-nv table 2)
		"udp-ndr":                  2,  // 2 payloads, each a no-drop-rate search
		"raw-ndr":                  5,  // 5 payloads at batch 10240, each a search
		"raw-net-ring":             2,  // queues (1,1) and (2,2) over net_ring0, no NIC
	}
	samples := readManifests(t, filepath.Join(repoRoot, "config", "samples", "*.yaml"))
	if len(samples) != len(want) {
		t.Fatalf("found %d samples, the test knows %d: keep them in step", len(samples), len(want))
	}
	for _, m := range samples {
		name := m.obj.GetName()
		t.Run(name, func(t *testing.T) {
			m.obj.SetNamespace(ns)
			if err := k8sClient.Create(context.Background(), m.obj); err != nil {
				t.Fatalf("sample %s refused: %v", m.path, err)
			}
			sb := waitAccepted(t, ns, name, want[name])
			// The stored (defaulted) spec plans to the same count in Go.
			cells, err := plan.Expand(&sb.Spec)
			if err != nil || int32(len(cells)) != want[name] {
				t.Errorf("plan.Expand of the stored spec: %d cells, %v", len(cells), err)
			}
		})
	}
}

// The seed's headline cells, one Smoke bench per transport, each plan to one headline cell.
func TestHeadlineCellsPerTransport(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for tr, desc := range map[sbv1.Transport]string{
		sbv1.TransportRawEthernet: "RawEthernet 8000 B batch 10240 (1,1)",
		sbv1.TransportRoCE:        "RoCE 8 MB",
		sbv1.TransportTCP:         "TCP 8000 B x 4 pairs",
		sbv1.TransportUDP:         "UDP 8000 B x 4 pairs",
	} {
		name := "headline-" + strings.ToLower(string(tr))
		if err := k8sClient.Create(context.Background(), sbtesting.MakeSpiralBench(name, ns).Transport(tr).Obj()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sb := waitAccepted(t, ns, name, 1)
		c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionAccepted)
		if !strings.Contains(c.Message, "headline cell 0: "+desc) {
			t.Errorf("%s: Accepted message %q does not name the headline %q", name, c.Message, desc)
		}
		// Defaults from the CRD: 30 s, 3 repeats, 2 s warm-up, one retry, MTU 9000, Loopback.
		r := sb.Spec.Run
		if r.Seconds != 30 || r.Repeats != 3 || ptr.Deref(r.WarmupSeconds, -1) != 2 || ptr.Deref(r.RetriesPerCell, -1) != 1 ||
			sb.Spec.Topology.MTU != 9000 || sb.Spec.Topology.Mode != sbv1.TopologyLoopback || sb.Spec.Matrix.Preset != sbv1.PresetSmoke {
			t.Errorf("%s: defaults not applied: run %+v topology %+v preset %q", name, r, sb.Spec.Topology, sb.Spec.Matrix.Preset)
		}
	}
}
