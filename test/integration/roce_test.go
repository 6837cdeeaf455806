package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// roceLatencySummary is the termination message spiral-dataplane writes for a roce latency run
// (output/summary.cpp): the socket fields plus lat_*_ns, identical on both sides.
func roceLatencySummary(role string, payload, p50, p99 int64) string {
	return fmt.Sprintf(`{"v":1,"transport":"roce","role":%q,"state":"Valid","reason":"","seconds_milli":1000,`+
		`"payload_bytes":%d,"pairs":1,"target_mbps":0,"tx_packets":5000,"tx_bytes":%d,"rx_packets":5000,"rx_bytes":%d,`+
		`"pps":5000,"tx_mbps":%d,"rx_mbps":%d,"drops":0,"drops_kind":"rdma-cqe-error","loss_ppm":0,"cpu_master_mpct":1000,`+
		`"cpu_tx_mpct":100000,"cpu_rx_mpct":100000,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,"gpu_stalls":0,`+
		`"lat_min_ns":%d,"lat_p50_ns":%d,"lat_p99_ns":%d,"lat_max_ns":%d}`,
		role, payload, 5000*payload, 5000*payload, 5000*payload*8/1e6, 5000*payload*8/1e6, p50-200, p50, p99, 4*p99)
}

// A RoCE latency sweep: the pods carry the RoCE flags, each cell's percentiles reach status
// (combined over repeats) and a p99 rule judges them cell by cell.
func TestRoCELatencyPercentilesReachStatusAndAreJudged(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "roce-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("roce-lat", ns).Transport(sbv1.TransportRoCE).Payloads(4096, 65536).
		RoCE(sbv1.RoCESpec{Verb: sbv1.RoCEVerbWrite, Mode: sbv1.RoCEModeLatency, QueuePairs: 1}), 2, 0).
		Rule(sbv1.AcceptanceRule{Name: "tail", Metric: sbv1.MetricLatencyP99Nanoseconds, Operator: sbv1.OperatorLessThanOrEqual,
			Value: 5000, Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	sb := onTestNode(w.Obj(), "roce-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "roce-lat", summary: func(cell, repeat int, role string) string {
		if cell == 0 {
			return roceLatencySummary(role, 4096, int64(2000+100*repeat), int64(3000+1000*repeat))
		}
		return roceLatencySummary(role, 65536, int64(4000+100*repeat), int64(6000+1000*repeat))
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	joined := strings.Join(k.clientArgs, " ")
	for _, want := range []string{"--transport roce", "--verb write --mode latency --queue-pairs 1"} {
		if !strings.Contains(joined, want) {
			t.Errorf("pod args lack %q: %s", want, joined)
		}
	}
	wants := []sbv1.Latency{
		{MinNanoseconds: 1800, P50Nanoseconds: 2000, P99Nanoseconds: 4000, MaxNanoseconds: 16000},
		{MinNanoseconds: 3800, P50Nanoseconds: 4000, P99Nanoseconds: 7000, MaxNanoseconds: 28000},
	}
	for i, want := range wants {
		c := sb.Status.CellResults[i]
		if c.State != sbv1.CellValid || c.Latency == nil || *c.Latency != want || c.DropsKind != "rdma-cqe-error" {
			t.Errorf("cell %d: state %s latency %+v drops kind %q, want latency %+v", i, c.State, c.Latency, c.DropsKind, want)
		}
		if len(c.RepeatResults) != 2 || c.RepeatResults[1].Latency == nil || c.RepeatResults[1].Latency.P99Nanoseconds != want.P99Nanoseconds {
			t.Errorf("cell %d repeats: %+v", i, c.RepeatResults)
		}
	}
	passed := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	if passed == nil || passed.Status != metav1.ConditionFalse || !strings.Contains(passed.Message, "tail") {
		t.Errorf("the 64 KiB cell's p99 of 7000 ns breaks the 5000 ns rule: Passed %+v", passed)
	}
}
