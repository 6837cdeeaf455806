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

// socketLatencySummary is the termination message spiral-dataplane writes for a tcp or udp
// latency run (output/summary.cpp): the socket fields plus lat_*_ns, identical on both sides.
func socketLatencySummary(transport, role string, payload, p50, p999 int64) string {
	return fmt.Sprintf(`{"v":1,"transport":%q,"role":%q,"state":"Valid","reason":"","seconds_milli":1000,`+
		`"payload_bytes":%d,"pairs":1,"target_mbps":0,"tx_packets":40000,"tx_bytes":%d,"rx_packets":40000,"rx_bytes":%d,`+
		`"pps":40000,"tx_mbps":1,"rx_mbps":1,"drops":0,"drops_kind":"tcp-nstat-retrans+inerrs","loss_ppm":0,"lost":0,`+
		`"retrans":0,"cpu_master_mpct":1000,"cpu_tx_mpct":100000,"cpu_rx_mpct":100000,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,`+
		`"gpu_stalls":0,"lat_min_ns":%d,"lat_p50_ns":%d,"lat_p99_ns":%d,"lat_p999_ns":%d,"lat_max_ns":%d}`,
		transport, role, payload, 40000*payload, 40000*payload, p50-1000, p50, (p50+p999)/2, p999, 3*p999)
}

// A TCP latency sweep (socket.mode Latency, spinning): the pods carry the mode, each cell's
// percentiles reach status combined over repeats, and a p99.9 rule judges them cell by cell.
func TestSocketLatencyPercentilesReachStatusAndAreJudged(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "lat-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("tcp-lat", ns).Transport(sbv1.TransportTCP).Payloads(64, 8000).Pairs(1).
		Socket(sbv1.SocketSpec{Mode: sbv1.SocketModeLatency, Wait: sbv1.SocketWaitSpin}), 2, 0).
		Rule(sbv1.AcceptanceRule{Name: "tail", Metric: sbv1.MetricLatencyP999Nanoseconds, Operator: sbv1.OperatorLessThanOrEqual,
			Value: 20000, Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	sb := onTestNode(w.Obj(), "lat-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "tcp-lat", summary: func(cell, repeat int, role string) string {
		if cell == 0 {
			return socketLatencySummary("tcp", role, 64, int64(6000+100*repeat), int64(12000+1000*repeat))
		}
		return socketLatencySummary("tcp", role, 8000, int64(9000+100*repeat), int64(20000+1000*repeat))
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	joined := strings.Join(k.clientArgs, " ")
	for _, want := range []string{"--transport tcp", "--pairs 1", "--mode latency --wait spin"} {
		if !strings.Contains(joined, want) {
			t.Errorf("pod args lack %q: %s", want, joined)
		}
	}
	wants := []sbv1.Latency{
		{MinNanoseconds: 5000, P50Nanoseconds: 6000, P99Nanoseconds: 9550, P999Nanoseconds: 13000, MaxNanoseconds: 39000},
		{MinNanoseconds: 8000, P50Nanoseconds: 9000, P99Nanoseconds: 15050, P999Nanoseconds: 21000, MaxNanoseconds: 63000},
	}
	for i, want := range wants {
		c := sb.Status.CellResults[i]
		if c.State != sbv1.CellValid || c.Latency == nil || *c.Latency != want {
			t.Errorf("cell %d: state %s latency %+v, want %+v", i, c.State, c.Latency, want)
		}
		if len(c.RepeatResults) != 2 || c.RepeatResults[1].Latency == nil || c.RepeatResults[1].Latency.P999Nanoseconds != want.P999Nanoseconds {
			t.Errorf("cell %d repeats: %+v", i, c.RepeatResults)
		}
	}
	passed := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	if passed == nil || passed.Status != metav1.ConditionFalse || !strings.Contains(passed.Message, "tail") {
		t.Errorf("the 8000 B cell's p99.9 of 21000 ns breaks the 20000 ns rule: Passed %+v", passed)
	}
}

// What admission takes for socket latency: one pair, each preset, both waits, busy polling.
func TestSocketLatencySpecsAreAdmitted(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for i, s := range []struct {
		transport sbv1.Transport
		preset    sbv1.Preset
		socket    sbv1.SocketSpec
	}{
		{sbv1.TransportTCP, sbv1.PresetSmoke, sbv1.SocketSpec{Mode: sbv1.SocketModeLatency}},
		{sbv1.TransportUDP, sbv1.PresetSweep, sbv1.SocketSpec{Mode: sbv1.SocketModeLatency, Wait: sbv1.SocketWaitSpin, BusyPollMicroseconds: 50}},
		{sbv1.TransportTCP, sbv1.PresetSweep, sbv1.SocketSpec{Mode: sbv1.SocketModeLatency, Wait: sbv1.SocketWaitBlocking, TCPNoDelay: true}},
	} {
		sb := sbtesting.MakeSpiralBench(fmt.Sprintf("lat-ok-%d", i), ns).Transport(s.transport).Preset(s.preset).Pairs(1).Socket(s.socket).Obj()
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Errorf("%s %s %+v refused: %v", s.transport, s.preset, s.socket, err)
		}
	}
}
