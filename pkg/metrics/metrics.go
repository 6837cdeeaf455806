// Package metrics holds the manager's Prometheus metrics, registered with controller-runtime's
// registry and served on the manager's metrics endpoint.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

var (
	cellsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "spiralbench_cells_total",
		Help: "Cells finished, by transport and state (Valid, Invalid, Failed).",
	}, []string{"transport", "state"})

	cellDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "spiralbench_cell_duration_seconds",
		Help:    "Wall time of a cell from its first pod to its last result, retries and repeats included.",
		Buckets: prometheus.ExponentialBuckets(5, 2, 10),
	}, []string{"transport"})

	lastCellRxMbps = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "spiralbench_last_cell_rx_mbps",
		Help: "Mean receive throughput of the bench's last finished cell, in Mb/s.",
	}, []string{"namespace", "name", "transport"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(cellsTotal, cellDuration, lastCellRxMbps)
}

// CellFinished records a finished cell. A fleet's bench gets no spiralbench_last_cell_rx_mbps
// series: it would outlive the bench's step by the whole round, one a bench (30,000 at 10,000
// nodes in three steps); the bench collector has its cells while it runs, the fleet's node
// series after.
func CellFinished(sb *sbv1.SpiralBench, res *sbv1.CellResult) {
	t := string(sb.Spec.Transport)
	cellsTotal.WithLabelValues(t, string(res.State)).Inc()
	if rx, ok := figure.Rx.Cell(res); ok && !fleetOwned(sb) {
		lastCellRxMbps.WithLabelValues(sb.Namespace, sb.Name, t).Set(rx)
	}
	if res.StartTime != nil && res.CompletionTime != nil {
		cellDuration.WithLabelValues(t).Observe(res.CompletionTime.Sub(res.StartTime.Time).Seconds())
	}
}

// Forget drops a deleted bench's series.
func Forget(namespace, name string) {
	lastCellRxMbps.DeletePartialMatch(prometheus.Labels{"namespace": namespace, "name": name})
}
