package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The collector reads status through a client; controller-runtime's fake client stands in for
// the manager's cache here (test/integration scrapes the real manager with Prometheus).
func TestCollectorDerivesSeriesFromStatus(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = sbv1.AddToScheme(scheme)
	tcp, wl := fixture.TCPSweep("tcp", 1, true), fixture.UDPWorkloads("wl")
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tcp, wl).WithStatusSubresource(tcp, wl).Build()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&benchCollector{reader: c, attach: attachRecords(tcp, wl), now: time.Now})

	want := `
# HELP spiralbench_bench_cells Cells of a bench's plan by state: Pending (not yet run), Running, Valid, Invalid, Failed.
# TYPE spiralbench_bench_cells gauge
spiralbench_bench_cells{name="tcp",namespace="bench",state="Failed",transport="TCP"} 1
spiralbench_bench_cells{name="tcp",namespace="bench",state="Invalid",transport="TCP"} 0
spiralbench_bench_cells{name="tcp",namespace="bench",state="Pending",transport="TCP"} 0
spiralbench_bench_cells{name="tcp",namespace="bench",state="Running",transport="TCP"} 0
spiralbench_bench_cells{name="tcp",namespace="bench",state="Valid",transport="TCP"} 8
spiralbench_bench_cells{name="wl",namespace="bench",state="Failed",transport="UDP"} 0
spiralbench_bench_cells{name="wl",namespace="bench",state="Invalid",transport="UDP"} 0
spiralbench_bench_cells{name="wl",namespace="bench",state="Pending",transport="UDP"} 0
spiralbench_bench_cells{name="wl",namespace="bench",state="Running",transport="UDP"} 0
spiralbench_bench_cells{name="wl",namespace="bench",state="Valid",transport="UDP"} 4
# HELP spiralbench_bench_verdict 1 for the bench's acceptance verdict: Passed, Failed, or Pending while it has none.
# TYPE spiralbench_bench_verdict gauge
spiralbench_bench_verdict{name="tcp",namespace="bench",transport="TCP",verdict="Failed"} 1
spiralbench_bench_verdict{name="wl",namespace="bench",transport="UDP",verdict="Passed"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "spiralbench_bench_cells", "spiralbench_bench_verdict"); err != nil {
		t.Error(err)
	}
	// One RX series per measured cell, carrying the cell's mean; the failed cell has none.
	if n := testutil.CollectAndCount(reg, "spiralbench_cell_rx_mbps"); n != 8+4 {
		t.Errorf("%d rx series, want 12", n)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_cell_gpu_sm_percent"); n != 4 {
		t.Errorf("%d GPU SM series, want the workload bench's 4", n)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_cell_cpu_busy_percent"); n != 3*12 {
		t.Errorf("%d CPU series, want 3 roles x 12 cells", n)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_bench_duration_seconds"); n != 2 {
		t.Errorf("%d duration series", n)
	}

	// Status alone stores no busy shares: without the attempt results there is no CPU series,
	// rather than a made-up one.
	bare := prometheus.NewPedanticRegistry()
	bare.MustRegister(&benchCollector{reader: c, now: time.Now})
	if n := testutil.CollectAndCount(bare, "spiralbench_cell_cpu_busy_percent"); n != 0 {
		t.Errorf("%d CPU series from status alone, want none", n)
	}
	if n := testutil.CollectAndCount(bare, "spiralbench_cell_rx_mbps"); n != 8+4 {
		t.Errorf("%d rx series from status alone, want 12 (the headline figure is stored)", n)
	}
}

// attachRecords stands in for the manager's attach from its cache: the fixtures' repeats, as
// the attempt results the controller writes, put into the cells through pkg/attempts.
func attachRecords(benches ...*sbv1.SpiralBench) func(context.Context, *sbv1.SpiralBench) {
	records := map[string][]sbv1.SpiralBenchAttemptResult{}
	for _, b := range benches {
		for _, c := range b.Status.CellResults {
			byAttempt := map[int32][]sbv1.RepeatResult{}
			for _, rr := range c.RepeatResults {
				byAttempt[rr.Attempt] = append(byAttempt[rr.Attempt], rr)
			}
			for a := int32(0); a < c.Attempts; a++ {
				records[b.Name] = append(records[b.Name], *attempts.New(b, c.Index, a, byAttempt[a], "", true))
			}
		}
	}
	return func(_ context.Context, sb *sbv1.SpiralBench) {
		attempts.Attach(sb, records[sb.Name], func(*sbv1.SpiralBenchAttemptResult) bool { return true })
	}
}

// A cell whose ceiling is known has a ceiling-fraction series naming the figure and the
// component; without the facts (the fixtures record no NIC) there is none.
func TestCeilingFractionSeriesOnlyWhereTheCeilingIsKnown(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = sbv1.AddToScheme(scheme)
	known, unknown := fixture.TCPSweep("nic", 1, false), fixture.TCPSweep("bare", 1, false)
	known.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(known, unknown).WithStatusSubresource(known, unknown).Build()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&benchCollector{reader: c, now: time.Now})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		if f.GetName() != "spiralbench_cell_ceiling_fraction" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["name"] != "nic" || labels["figure"] != "RxMbps" || labels["component"] != "Ethernet" || m.GetGauge().GetValue() <= 0 || m.GetGauge().GetValue() > 1.2 {
				t.Errorf("series %v = %v", labels, m.GetGauge().GetValue())
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no ceiling-fraction series for the bench with a 100 Gb/s NIC")
	}
}

// informerCache is the manager's cache as the collector reads it: in place, the benches the
// cache's own objects.
func informerCache(t *testing.T, benches ...*sbv1.SpiralBench) cache.Cache {
	t.Helper()
	var objs []client.Object
	for _, sb := range benches {
		objs = append(objs, sb)
	}
	c, err := sbtesting.InformerCache(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A scrape lists the cache in place; attaching the attempt results to a bench's cells must not
// write into the cache's own objects.
func TestAScrapeLeavesTheCachedBenchesAsTheyAre(t *testing.T) {
	tcp := fixture.TCPSweep("tcp", 1, false)
	attach := attachRecords(tcp)
	for i := range tcp.Status.CellResults { // as stored: no repeats, no derived figures
		c := &tcp.Status.CellResults[i]
		c.RepeatResults = nil
		aggregate.ClearDerived(c)
	}
	before := tcp.DeepCopy()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&benchCollector{cache: informerCache(t, tcp), attach: attach, now: time.Now})
	if n := testutil.CollectAndCount(reg, "spiralbench_cell_tx_mbps"); n != 9 {
		t.Errorf("%d tx series, want the 9 cells' (derived from the attached repeats)", n)
	}
	if !equality.Semantic.DeepEqual(before, tcp) {
		t.Errorf("the scrape wrote into the cached bench: cell 0 now has %d repeats, tx %+v", len(tcp.Status.CellResults[0].RepeatResults), tcp.Status.CellResults[0].TXMbps)
	}
}

// A fleet's finished benches have no series of their own (the fleet's node series stand for
// them) but a failing upload, and attach is not called for them; spiralbench_benches still
// counts every bench by phase. A fleet bench that runs, and a bench no fleet owns, keep theirs.
func TestAFleetsFinishedBenchesAreSummarisedByTheFleet(t *testing.T) {
	fleetRef := func(sb *sbv1.SpiralBench) *sbv1.SpiralBench {
		sb.OwnerReferences = []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet",
			Name: "pool", UID: "u", Controller: ptr.To(true)}}
		return sb
	}
	judged := fleetRef(fixture.TCPSweep("judged", 1, true))
	running := fleetRef(fixture.TCPSweep("running", 1, true))
	running.Status.Phase = sbv1.PhaseRunning
	own := fixture.TCPSweep("own", 1, true)
	unuploaded := fleetRef(fixture.TCPSweep("unuploaded", 1, true))
	meta.SetStatusCondition(&unuploaded.Status.Conditions, metav1.Condition{Type: sbv1.ConditionResultsUploaded, Status: metav1.ConditionFalse, Reason: "Unreachable"})
	attached := map[string]bool{}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&benchCollector{cache: informerCache(t, judged, running, own, unuploaded),
		attach: func(_ context.Context, sb *sbv1.SpiralBench) { attached[sb.Name] = true }, now: time.Now})
	want := fmt.Sprintf(`
# HELP spiralbench_bench_phase 1 for each SpiralBench, labelled with its phase (Pending, Queued, Running, Suspended, Completed, Failed).
# TYPE spiralbench_bench_phase gauge
spiralbench_bench_phase{name="own",namespace="bench",phase="%s",transport="TCP"} 1
spiralbench_bench_phase{name="running",namespace="bench",phase="Running",transport="TCP"} 1
# HELP spiralbench_benches SpiralBenches in the manager's cache by namespace and phase, those a fleet summarises included.
# TYPE spiralbench_benches gauge
spiralbench_benches{namespace="bench",phase="%s"} 3
spiralbench_benches{namespace="bench",phase="Running"} 1
# HELP spiralbench_bench_results_uploaded 1 when the bench's results are in its bucket, 0 while uploading fails; absent without a bucket or before the end.
# TYPE spiralbench_bench_results_uploaded gauge
spiralbench_bench_results_uploaded{name="unuploaded",namespace="bench",transport="TCP"} 0
`, own.Status.Phase, own.Status.Phase)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "spiralbench_bench_phase", "spiralbench_benches", "spiralbench_bench_results_uploaded"); err != nil {
		t.Error(err)
	}
	if attached["judged"] || !attached["running"] || !attached["own"] {
		t.Errorf("attached %v: want the running fleet bench and the user's bench, not the judged one", attached)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_cell_rx_mbps"); n != 2*8 {
		t.Errorf("%d rx series, want the two unsummarised benches' 8 each", n)
	}
}
