package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Every manifest under testdata/invalid (SpiralBenches and SpiralBenchFleets) is refused at
// admission with the message its first line names, and none of its "# not:" lines, and nothing
// is created.
func TestInvalidManifestsAreRefusedWithTheirMessage(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	manifests := readManifests(t, filepath.Join("testdata", "invalid", "*.yaml"))
	if len(manifests) < 25 {
		t.Fatalf("want at least 25 invalid manifests, found %d", len(manifests))
	}
	for _, m := range manifests {
		t.Run(strings.TrimSuffix(filepath.Base(m.path), ".yaml"), func(t *testing.T) {
			if m.want == "" {
				t.Fatalf("%s lacks a '# want:' first line", m.path)
			}
			m.obj.SetNamespace(ns)
			err := k8sClient.Create(context.Background(), m.obj)
			if err == nil {
				t.Fatalf("admitted; want refusal with %q", m.want)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			if !strings.Contains(err.Error(), m.want) {
				t.Fatalf("error does not say %q:\n%v", m.want, err)
			}
			for _, n := range m.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error says %q, which leads into another refusal:\n%v", n, err)
				}
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(m.obj.GroupVersionKind())
			if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: m.obj.GetName()}, got); !apierrors.IsNotFound(err) {
				t.Fatalf("a refused manifest must leave nothing behind, Get: %v", err)
			}
		})
	}
}

// The CEL cell bound and the planner agree at the edge: exactly 512 cells are admitted, both
// from explicit lists and with a preset filling a list.
func TestCellBoundAdmitsExactly512(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	seq := func(n int, from int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = from + int32(i)
		}
		return out
	}
	for name, sb := range map[string]*sbv1.SpiralBench{
		"raw-32x16": sbtesting.MakeSpiralBench("raw-32x16", ns).Transport(sbv1.TransportRawEthernet).
			Payloads(seq(32, 64)...).Batches(seq(16, 1)...).Obj(),
		"udp-16x4x8": sbtesting.MakeSpiralBench("udp-16x4x8", ns).Transport(sbv1.TransportUDP).
			Preset(sbv1.PresetDropCurve).Payloads(seq(16, 64)...).Pairs(1, 2, 3, 4).Obj(),
	} {
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Errorf("%s: a 512-cell plan must be admitted: %v", name, err)
			continue
		}
		waitAccepted(t, ns, name, 512)
	}
}

// An attempt's record is named after its bench, cell and attempt, and its figures are never
// negative: anything else is refused with the field to change. (The name rule compares the
// pieces, not one concatenation: the apiserver prices a string(int) inside a concatenation as
// unbounded and would refuse the CRD.)
func TestAttemptResultNameAndFiguresAreChecked(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	record := func(name string, mutate func(*sbv1.RepeatResult)) *sbv1.SpiralBenchAttemptResult {
		r := sbv1.RepeatResult{Repeat: 0, State: sbv1.CellValid, RXMbps: 9000, TXMbps: 9000, Latency: &sbv1.Latency{P50Nanoseconds: 5000, P99Nanoseconds: 9000}}
		mutate(&r)
		return &sbv1.SpiralBenchAttemptResult{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Bench: "tcp-sweep", CellIndex: 12, Attempt: 3, Measured: 1, RepeatResults: []sbv1.RepeatResult{r}}
	}
	same := func(*sbv1.RepeatResult) {}
	for name, c := range map[string]struct {
		obj  *sbv1.SpiralBenchAttemptResult
		want string
	}{
		"another cell":      {record("tcp-sweep-c1-a3", same), "metadata.name must be BENCH-cCELL-aATTEMPT"},
		"a leading zero":    {record("tcp-sweep-c12-a03", same), "metadata.name must be BENCH-cCELL-aATTEMPT"},
		"another bench":     {record("tcp-c12-a3", same), "metadata.name must be BENCH-cCELL-aATTEMPT"},
		"a tail":            {record("tcp-sweep-c12-a3-a4", same), "metadata.name must be BENCH-cCELL-aATTEMPT"},
		"negative Mb/s":     {record(attempts.Name("tcp-sweep", 12, 3), func(r *sbv1.RepeatResult) { r.RXMbps = -1 }), "repeatResults[0].rxMbps"},
		"negative count":    {record(attempts.Name("tcp-sweep", 12, 3), func(r *sbv1.RepeatResult) { r.Drops = -5 }), "repeatResults[0].drops"},
		"negative latency":  {record(attempts.Name("tcp-sweep", 12, 3), func(r *sbv1.RepeatResult) { r.Latency.P99Nanoseconds = -1 }), "latency.p99Nanoseconds"},
		"negative duration": {record(attempts.Name("tcp-sweep", 12, 3), func(r *sbv1.RepeatResult) { r.WallMilliseconds = -1 }), "wallMilliseconds"},
	} {
		err := k8sClient.Create(context.Background(), c.obj)
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want a refusal saying %q, got %v", name, c.want, err)
		}
	}
	if err := k8sClient.Create(context.Background(), record(attempts.Name("tcp-sweep", 12, 3), same)); err != nil {
		t.Errorf("a record under its own name is refused: %v", err)
	}
}

// A node's row is named after its fleet, round and node (pkg/fleet ResultName; the manager's
// tag after them is not CEL's to check); its headline value is never negative.
func TestNodeResultNameAndValueAreChecked(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	row := func(name string, round int32, node string) *sbv1.SpiralBenchNodeResult {
		return &sbv1.SpiralBenchNodeResult{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Fleet: "pool", Round: round,
			Result: sbv1.FleetNode{Name: node, Verdict: sbv1.NodePassed, Value: ptr.To[int64](9000)}}
	}
	long := strings.Repeat("n", 250) // the readable part is cut to fit 253 characters
	const want, tag = "metadata.name must be FLEET-ROUND-NODE-TAG", "0123456789abcdef"
	negative := row(fleet.ResultName("pool", 2, "gpu-1", tag), 2, "gpu-1")
	negative.Result.Value = ptr.To[int64](-1)
	for name, c := range map[string]struct {
		obj  *sbv1.SpiralBenchNodeResult
		want string
	}{
		"another round":   {row(fleet.ResultName("pool", 1, "gpu-1", tag), 2, "gpu-1"), want},
		"another node":    {row(fleet.ResultName("pool", 2, "gpu-2", tag), 2, "gpu-1"), want},
		"a node's prefix": {row(fleet.ResultName("pool", 2, "gpu", tag), 2, "gpu-1"), want},
		"another fleet":   {row(fleet.ResultName("other", 2, "gpu-1", tag), 2, "gpu-1"), want},
		"no tag":          {row("pool-2-gpu-1", 2, "gpu-1"), want},
		"a cut name":      {row(fleet.ResultName("pool", 3, long, tag), 2, long), want},
		"negative value":  {negative, "result.value"},
	} {
		err := k8sClient.Create(context.Background(), c.obj)
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want a refusal saying %q, got %v", name, c.want, err)
		}
	}
	for _, node := range []string{"gpu-1", "node.rack-7.example.com", long} {
		if err := k8sClient.Create(context.Background(), row(fleet.ResultName("pool", 2, node, tag), 2, node)); err != nil {
			t.Errorf("the row of %.20s... under its own name is refused: %v", node, err)
		}
	}
}
