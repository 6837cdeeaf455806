package metrics

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/incache"
)

// benchCollector derives the dashboard's series from the SpiralBenches' status at each scrape,
// read from the manager's informer cache: status is the only state, so the series always agree
// with `kubectl get` and vanish with the bench. docs/metrics.md documents every series.
type benchCollector struct {
	reader client.Reader
	// cache is the manager's informer cache, read in place (pkg/incache); nil lists through reader.
	cache cache.Cache
	// attach puts a bench's attempt results into its cells, which derives the figures the bench
	// does not store (TX, loss, CPU and GPU busy); nil reads status alone.
	attach func(ctx context.Context, sb *sbv1.SpiralBench)
	now    func() time.Time
}

var (
	benchLabels = []string{"namespace", "name", "transport"}
	cellLabels  = []string{"namespace", "name", "transport", "cell", "parameters", "state"}

	descPhase = prometheus.NewDesc("spiralbench_bench_phase",
		"1 for each SpiralBench, labelled with its phase (Pending, Queued, Running, Suspended, Completed, Failed).",
		append(benchLabels, "phase"), nil)
	descCells = prometheus.NewDesc("spiralbench_bench_cells",
		"Cells of a bench's plan by state: Pending (not yet run), Running, Valid, Invalid, Failed.",
		append(benchLabels, "state"), nil)
	descVerdict = prometheus.NewDesc("spiralbench_bench_verdict",
		"1 for the bench's acceptance verdict: Passed, Failed, or Pending while it has none.",
		append(benchLabels, "verdict"), nil)
	descUploaded = prometheus.NewDesc("spiralbench_bench_results_uploaded",
		"1 when the bench's results are in its bucket, 0 while uploading fails; absent without a bucket or before the end.",
		benchLabels, nil)
	descDuration = prometheus.NewDesc("spiralbench_bench_duration_seconds",
		"Seconds from the bench's first cell to its completion, or to now while it runs.",
		append(benchLabels, "phase"), nil)
	descRx = prometheus.NewDesc("spiralbench_cell_rx_mbps",
		"A finished cell's mean receive throughput (goodput) over its repeats, in Mb/s.", cellLabels, nil)
	descTx = prometheus.NewDesc("spiralbench_cell_tx_mbps",
		"A finished cell's mean send throughput over its repeats, in Mb/s.", cellLabels, nil)
	descDrops = prometheus.NewDesc("spiralbench_cell_drops",
		"Drops a finished cell counted over its repeats; kind says what was counted (udp_gap, tcp_retrans, imissed, ...).",
		append(cellLabels, "kind"), nil)
	descLoss = prometheus.NewDesc("spiralbench_cell_loss_ppm",
		"A finished cell's application loss (TX - RX) / TX in parts per million, mean over its repeats.", cellLabels, nil)
	descCPU = prometheus.NewDesc("spiralbench_cell_cpu_busy_percent",
		"Busy share of a finished cell's pinned cores by role (master, tx, rx), mean over its repeats, in percent.",
		append(cellLabels, "role"), nil)
	descGPU = prometheus.NewDesc("spiralbench_cell_gpu_sm_percent",
		"GPU streaming-multiprocessor utilisation during a finished cell (NVML), mean over its repeats, in percent; absent when unknown.",
		cellLabels, nil)
	descBenches = prometheus.NewDesc("spiralbench_benches",
		"SpiralBenches in the manager's cache by namespace and phase, those a fleet summarises included.",
		[]string{"namespace", "phase"}, nil)
	descCeiling = prometheus.NewDesc("spiralbench_cell_ceiling_fraction",
		"A finished cell's headline figure as a fraction of its physical ceiling (docs/ceilings.md), with the figure and the component that sets the ceiling; absent when the ceiling is unknown.",
		append(cellLabels, "figure", "component"), nil)
)

// RegisterBenchCollector adds the status-derived series of benches and fleets to the manager's
// registry; they read the manager's informer cache in place (the cache-backed client where it
// cannot be), and attach reads a bench's attempt results from the same cache, so a scrape costs
// no API call.
func RegisterBenchCollector(c cache.Cache, reader client.Reader, attach func(ctx context.Context, sb *sbv1.SpiralBench)) error {
	if err := ctrlmetrics.Registry.Register(&benchCollector{reader: reader, cache: c, attach: attach, now: time.Now}); err != nil {
		return err
	}
	// The fleets' series (fleets.go) come from the same cache, at the same scrape.
	return ctrlmetrics.Registry.Register(&fleetCollector{benchCollector{reader: reader, cache: c, now: time.Now}})
}

func (c *benchCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descBenches, descPhase, descCells, descVerdict, descUploaded, descDuration, descRx, descTx, descDrops, descLoss, descCPU, descGPU, descCeiling} {
		ch <- d
	}
}

func (c *benchCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// In place: a scrape of a 10,000-node manager read some 30,000 benches, and their copies
	// (about 330 MB deep, 36 MB as a list's struct copies) took its heap over its limit. A bench
	// is the cache's; attach writes into a copy of its struct with its own cell list.
	benches, err := incache.Objects(ctx, c.cache, c.reader, &sbv1.SpiralBench{}, &sbv1.SpiralBenchList{}, "", every[*sbv1.SpiralBench])
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descCells, err)
		return
	}
	type nsPhase struct{ namespace, phase string }
	counts := map[nsPhase]int{}
	for _, cached := range benches {
		counts[nsPhase{cached.Namespace, string(phaseOf(cached))}]++
		if summarisedByFleet(cached) {
			notUploaded(ch, cached)
			continue
		}
		sb := cached
		if c.attach != nil {
			own := *cached
			own.Status.CellResults = slices.Clone(cached.Status.CellResults)
			c.attach(ctx, &own)
			sb = &own
		}
		c.collectBench(ch, sb)
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(descBenches, prometheus.GaugeValue, float64(n), k.namespace, k.phase)
	}
}

func every[T any](T) bool { return true }

// summarisedByFleet: a finished bench a fleet owns has no series of its own. A fleet's round
// keeps a bench a node and step until the next round (30,000 at 10,000 nodes in three steps),
// and their series made every scrape of such a manager hold hundreds of megabytes at once
// (docs/benchmarks/fleet.md); the fleet's node series (verdict, reasons, value) and
// spiralbench_benches stand for them, and the bench, its report and its bucket keep the rest;
// only a failing upload stays (notUploaded).
func summarisedByFleet(sb *sbv1.SpiralBench) bool {
	return fleetOwned(sb) && (sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed)
}

// notUploaded keeps a summarised bench's spiralbench_bench_results_uploaded while its upload
// fails: the fleet's series do not say it, and an alert watches it.
func notUploaded(ch chan<- prometheus.Metric, sb *sbv1.SpiralBench) {
	if u := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsUploaded); u != nil && u.Status == metav1.ConditionFalse {
		ch <- prometheus.MustNewConstMetric(descUploaded, prometheus.GaugeValue, 0, sb.Namespace, sb.Name, string(sb.Spec.Transport))
	}
}

// fleetOwned: a SpiralBenchFleet is the bench's controller.
func fleetOwned(sb *sbv1.SpiralBench) bool {
	ref := metav1.GetControllerOfNoCopy(sb)
	return ref != nil && ref.Kind == "SpiralBenchFleet" && ref.APIVersion == sbv1.GroupVersion.String()
}

func phaseOf(sb *sbv1.SpiralBench) sbv1.Phase {
	if sb.Status.Phase == "" {
		return sbv1.PhasePending
	}
	return sb.Status.Phase
}

func (c *benchCollector) collectBench(ch chan<- prometheus.Metric, sb *sbv1.SpiralBench) {
	b := []string{sb.Namespace, sb.Name, string(sb.Spec.Transport)}
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(append([]string{}, b...), extra...)...)
	}
	gauge(descPhase, 1, string(phaseOf(sb)))
	counts := map[sbv1.CellState]int32{sbv1.CellPending: 0, sbv1.CellRunning: 0, sbv1.CellValid: 0, sbv1.CellInvalid: 0, sbv1.CellFailed: 0}
	for _, r := range sb.Status.CellResults {
		counts[r.State]++
	}
	if a := sb.Status.ActiveAttempt; a != nil && !hasResult(sb, a.CellIndex) {
		counts[sbv1.CellRunning]++
	}
	finished := counts[sbv1.CellValid] + counts[sbv1.CellInvalid] + counts[sbv1.CellFailed] + counts[sbv1.CellRunning]
	counts[sbv1.CellPending] = max(0, sb.Status.Cells.Total-finished)
	for state, n := range counts {
		gauge(descCells, float64(n), string(state))
	}

	verdict := "Pending"
	if p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed); p != nil {
		verdict = map[bool]string{true: "Passed", false: "Failed"}[p.Status == "True"]
	}
	gauge(descVerdict, 1, verdict)
	if u := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsUploaded); u != nil {
		gauge(descUploaded, map[bool]float64{true: 1, false: 0}[u.Status == "True"])
	}
	if start := sb.Status.StartTime; start != nil {
		end := c.now()
		if sb.Status.CompletionTime != nil {
			end = sb.Status.CompletionTime.Time
		}
		gauge(descDuration, end.Sub(start.Time).Seconds(), string(sb.Status.Phase))
	}

	for _, r := range sb.Status.CellResults {
		if r.Repeats == 0 {
			continue // a failed cell has no measurement; spiralbench_bench_cells counts it
		}
		cl := []string{strconv.Itoa(int(r.Index)), benchkind.Parameters(sb.Spec.Transport, r.Parameters), string(r.State)}
		if rx, ok := figure.Rx.Cell(&r); ok {
			gauge(descRx, rx, cl...)
		}
		if tx, ok := figure.Tx.Cell(&r); ok {
			gauge(descTx, tx, cl...)
		}
		if e := explain.Cell(sb, &r); e.Fraction != nil {
			gauge(descCeiling, *e.Fraction, append(cl, e.Figure, e.Component)...)
		}
		gauge(descDrops, float64(r.Drops), append(cl, r.DropsKind)...)
		if loss, ok := figure.Loss.Cell(&r); ok {
			gauge(descLoss, loss, cl...)
		}
		if r.CPU != nil {
			for role, m := range map[string]int32{"master": r.CPU.MasterMilliPercent, "tx": r.CPU.TXMilliPercent, "rx": r.CPU.RXMilliPercent} {
				if m >= 0 {
					gauge(descCPU, figure.MilliPercent.Scaled(float64(m)), append(cl, role)...)
				}
			}
		}
		if sm, ok := figure.GPUSM.Cell(&r); ok {
			gauge(descGPU, figure.GPUSM.Unit.Scaled(sm), cl...)
		}
	}
}

func hasResult(sb *sbv1.SpiralBench, cell int32) bool {
	for _, r := range sb.Status.CellResults {
		if r.Index == cell && r.State != sbv1.CellPending && r.State != sbv1.CellRunning {
			return true
		}
	}
	return false
}
