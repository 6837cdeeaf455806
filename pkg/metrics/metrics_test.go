package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestCellFinishedCountsTimesAndRemembersThroughput(t *testing.T) {
	sb := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "tcp", Namespace: "lab"}, Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportTCP}}
	start := metav1.NewTime(time.Now().Add(-40 * time.Second))
	end := metav1.Now()
	before := testutil.ToFloat64(cellsTotal.WithLabelValues("TCP", "Valid"))
	CellFinished(sb, &sbv1.CellResult{State: sbv1.CellValid, RXMbps: &sbv1.Statistic{Mean: 97200}, StartTime: &start, CompletionTime: &end})
	if got := testutil.ToFloat64(cellsTotal.WithLabelValues("TCP", "Valid")); got != before+1 {
		t.Errorf("cells_total %v, want %v", got, before+1)
	}
	if got := testutil.ToFloat64(lastCellRxMbps.WithLabelValues("lab", "tcp", "TCP")); got != 97200 {
		t.Errorf("last_cell_rx_mbps %v", got)
	}
	if n := testutil.CollectAndCount(cellDuration); n != 1 {
		t.Errorf("cell_duration_seconds series %d", n)
	}
	Forget("lab", "tcp")
	if n := testutil.CollectAndCount(lastCellRxMbps); n != 0 {
		t.Errorf("a deleted bench's series must go, %d left", n)
	}
}
