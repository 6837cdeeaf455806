package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plots"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func quick(w *sbtesting.SpiralBenchWrapper, seconds, repeats, retries int32) *sbv1.SpiralBench {
	w.Spec.Run = sbv1.RunSpec{Seconds: seconds, WarmupSeconds: ptr.To[int32](1), Repeats: repeats, RetriesPerCell: ptr.To(retries)}
	w.Spec.Results = results()
	return w.Obj()
}

func finished(sb *sbv1.SpiralBench) bool {
	return sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed
}

// overlapWatch samples which benches have live cell pods; two at once breaks exclusivity.
type overlapWatch struct {
	mu    sync.Mutex
	seen  map[string]bool
	clash string
}

func (o *overlapWatch) run(ctx context.Context, ns string) {
	o.seen = map[string]bool{}
	for ctx.Err() == nil {
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(ns)); err == nil {
			benches := map[string]bool{}
			for _, p := range pods.Items {
				if b := p.Labels[cellpod.LabelBench]; b != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
					benches[b] = true
				}
			}
			o.mu.Lock()
			for b := range benches {
				o.seen[b] = true
			}
			if len(benches) > 1 && o.clash == "" {
				o.clash = fmt.Sprintf("%v ran pods at once at %s", benches, time.Now().Format(time.RFC3339Nano))
			}
			o.mu.Unlock()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestSweepsRunToCompletionWithResultsInStatusAndBucket(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	ctx, stop := context.WithCancel(context.Background())
	watch := &overlapWatch{}
	done := make(chan struct{})
	go func() { watch.run(ctx, ns); close(done) }()

	tcp := quick(sbtesting.MakeSpiralBench("tcp", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1, 2).
		Rule(sbv1.AcceptanceRule{Name: "moves-data", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 100,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}}), 2, 2, 1)
	// 100 Mb/s of 1000 B datagrams (the pod network's MTU is 1500): at 200 Mb/s a sender sharing
	// two cores with the cluster fell short of its target ("sender reached 182 of the 200 Mb/s")
	// and the cell was rightly Invalid.
	udp := quick(sbtesting.MakeSpiralBench("udp", ns).Transport(sbv1.TransportUDP).Payloads(1000).Pairs(1).TargetsMbps(100).
		Rule(sbv1.AcceptanceRule{Name: "impossible-rate", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 100_000_000}), 2, 2, 1)
	for _, sb := range []*sbv1.SpiralBench{tcp, udp} {
		if err := k8s.Create(context.Background(), sb); err != nil {
			t.Fatal(err)
		}
	}
	tcp = waitFor(t, ns, "tcp", 6*time.Minute, "tcp Completed", finished)
	udp = waitFor(t, ns, "udp", 6*time.Minute, "udp Completed", finished)
	stop()
	<-done

	// Exclusivity: both ran on the one node, never at the same time.
	if watch.clash != "" {
		t.Errorf("two benches shared the node: %s", watch.clash)
	}
	if !watch.seen["tcp"] || !watch.seen["udp"] {
		t.Errorf("the sampler saw pods of %v only", watch.seen)
	}
	first, second := tcp, udp
	if udp.Status.StartTime.Before(tcp.Status.StartTime) {
		first, second = udp, tcp
	}
	if second.Status.StartTime.Before(first.Status.CompletionTime) {
		t.Errorf("%s started at %s before %s completed at %s", second.Name, second.Status.StartTime, first.Name, first.Status.CompletionTime)
	}

	for _, sb := range []*sbv1.SpiralBench{tcp, udp} {
		if sb.Status.Phase != sbv1.PhaseCompleted || sb.Status.Cells.Succeeded != sb.Status.Cells.Total {
			t.Errorf("%s: phase %s cells %+v; results %+v", sb.Name, sb.Status.Phase, sb.Status.Cells, sb.Status.CellResults)
			continue
		}
		for _, c := range sb.Status.CellResults {
			if c.Repeats != 2 || c.RXMbps == nil || c.RXMbps.Mean <= 0 || c.TXMbps.Mean <= 0 || c.CPU == nil {
				t.Errorf("%s cell %d: %+v", sb.Name, c.Index, c)
			}
		}
		if sb.Status.Environment == nil || sb.Status.Environment.Kernel == "" {
			t.Errorf("%s: environment %+v", sb.Name, sb.Status.Environment)
		}
	}
	// The environment travels by its relay container even when repeats share a pod, so the
	// report names the machine and each cell says what bounded it (the pod network's veth: the
	// CPU), never "unknown: no NIC recorded".
	if e := tcp.Status.Environment; e == nil || e.CPUModel == "" || len(e.NICs) == 0 {
		t.Errorf("tcp: the environment lacks the CPU model or the NICs: %+v", e)
	}
	for _, c := range tcp.Status.CellResults {
		if c.BoundBy == "" || strings.HasPrefix(c.BoundBy, "unknown") {
			t.Errorf("tcp cell %d: bound %q", c.Index, c.BoundBy)
		}
	}
	// On the pod network each client started beside its server, which told it its address
	// through the manager's rendezvous (docs/operator.md, "One attempt"), and the cells passed.
	var events eventsv1.EventList
	if err := k8s.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	viaRendezvous := 0
	for _, e := range events.Items {
		if e.Reason == "PeersStarted" && e.Regarding.Name == "tcp" && strings.Contains(e.Note, "will announce its address to the rendezvous") {
			viaRendezvous++
		}
	}
	if viaRendezvous == 0 {
		t.Errorf("no PeersStarted event of tcp says its client waited at the rendezvous")
	}
	// TCP is flow-controlled: what left arrived.
	for _, c := range tcp.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.TXBytes == 0 || r.RXBytes == 0 || float64(r.RXBytes) < 0.9*float64(r.TXBytes) {
				t.Errorf("tcp cell %d repeat %d: tx %d B rx %d B", c.Index, r.Repeat, r.TXBytes, r.RXBytes)
			}
		}
	}
	// A 100 Mb/s paced UDP stream: the receiver sees about that rate.
	if rx := udp.Status.CellResults[0].RXMbps.Mean; rx < 75 || rx > 110 {
		t.Errorf("udp paced at 100 Mb/s received %d Mb/s", rx)
	}

	if c := meta.FindStatusCondition(tcp.Status.Conditions, sbv1.ConditionPassed); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("tcp must pass its rule: %+v", c)
	}
	if c := meta.FindStatusCondition(udp.Status.Conditions, sbv1.ConditionPassed); c == nil || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, "impossible-rate: cell 0 RxMbps") {
		t.Errorf("udp must fail its rule, naming it: %+v", c)
	}

	// The bucket holds runs.csv, and it agrees with status.
	tcp = waitFor(t, ns, "tcp", 2*time.Minute, "ResultsUploaded", func(sb *sbv1.SpiralBench) bool {
		return meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
	})
	prefix := fmt.Sprintf("e2e/%s/tcp/%s/", ns, tcp.Status.Artifacts.RunID)
	// runs.csv, results.jsonl, failures.csv, verdict.json, environment.json, spec.json, report.html,
	// SIGNATURE.json and each figure as PNG and SVG
	if want := 8 + 2*len(plots.Charts(tcp)); len(tcp.Status.Artifacts.URIs) != want {
		t.Errorf("artifacts %+v, want %d objects", tcp.Status.Artifacts, want)
	}
	page := object(t, prefix+"report.html")
	if !bytes.Contains(page, []byte(">"+ns+"/tcp</h1>")) {
		t.Errorf("report.html in the bucket does not name the bench: %.300s", page)
	}
	// The report names the machine: the CPU model and the server's interface, as status does.
	if e := tcp.Status.Environment; e == nil || e.CPUModel == "" || len(e.NICs) == 0 ||
		!bytes.Contains(page, []byte(html.EscapeString(e.CPUModel))) || !bytes.Contains(page, []byte(e.NICs[0].Interface+"=")) {
		t.Errorf("report.html lacks the environment's CPU model or interface (environment %+v)", e)
	}
	for _, f := range plots.Charts(tcp) {
		if svg := object(t, prefix+"plots/"+f.Name+".svg"); !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("plots/%s.svg in the bucket is not an SVG", f.Name)
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(object(t, prefix+"runs.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	var statusRx []string
	for _, c := range tcp.Status.CellResults {
		for _, r := range c.RepeatResults {
			// DAQIRI's rx_gbps: the receiver's bytes over the measured (sender's) window.
			statusRx = append(statusRx, strconv.FormatFloat(float64(r.RXBytes)*8/1e6/float64(r.MeasuredMilliseconds), 'f', 3, 64))
		}
	}
	if len(rows)-1 != len(statusRx) {
		t.Fatalf("runs.csv has %d rows, status %d repeats", len(rows)-1, len(statusRx))
	}
	for i, want := range statusRx {
		if got := rows[i+1][col["rx_gbps"]]; got != want {
			t.Errorf("runs.csv row %d rx_gbps %s, status says %s", i+1, got, want)
		}
	}
	for _, f := range []string{"results.jsonl", "environment.json", "spec.json"} {
		if len(object(t, prefix+f)) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
}

func TestFaultsNeitherLoseNorRepeatACell(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	sb := quick(sbtesting.MakeSpiralBench("faults", ns).Transport(sbv1.TransportTCP).Payloads(1000, 4000, 8000).Pairs(1), 3, 1, 2)
	if err := k8s.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}

	// 1. Delete cell 0's running server pod: the attempt fails and is retried.
	waitFor(t, ns, "faults", 2*time.Minute, "cell 0 running", func(sb *sbv1.SpiralBench) bool {
		a := sb.Status.ActiveAttempt
		if a == nil || a.CellIndex != 0 {
			return false
		}
		pod := &corev1.Pod{}
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: cellpod.Name("faults", 0, a.Attempt, cellpod.RoleServer)}, pod)
		return err == nil && pod.Status.Phase == corev1.PodRunning
	})
	if err := k8s.DeleteAllOf(context.Background(), &corev1.Pod{}, client.InNamespace(ns),
		client.MatchingLabels{cellpod.LabelBench: "faults", cellpod.LabelCell: "0", cellpod.LabelRole: cellpod.RoleServer}); err != nil {
		t.Fatal(err)
	}

	// 2. While cell 1 runs: the bucket goes away and the manager restarts.
	waitFor(t, ns, "faults", 3*time.Minute, "cell 1 running", func(sb *sbv1.SpiralBench) bool {
		return sb.Status.ActiveAttempt != nil && sb.Status.ActiveAttempt.CellIndex == 1
	})
	s3(t, "stop")
	if err := k8s.DeleteAllOf(context.Background(), &corev1.Pod{}, client.InNamespace("spiralbench-system"),
		client.MatchingLabels{"app.kubernetes.io/component": "manager"}); err != nil {
		t.Fatal(err)
	}

	sb = waitFor(t, ns, "faults", 5*time.Minute, "Completed", finished)
	want := map[int32]int32{0: 2, 1: 1, 2: 1} // attempts: cell 0 retried once, nothing else re-run
	for _, c := range sb.Status.CellResults {
		if c.State != sbv1.CellValid || len(c.RepeatResults) != 1 || c.RepeatResults[0].Repeat != 0 || c.Attempts != want[c.Index] {
			t.Errorf("cell %d: state %s repeats %d attempts %d (want %d) message %q", c.Index, c.State, len(c.RepeatResults), c.Attempts, want[c.Index], c.Message)
		}
	}
	if len(sb.Status.CellResults) != 3 {
		t.Errorf("want 3 cell results, got %d", len(sb.Status.CellResults))
	}

	// 3. The bucket is down: results wait in status; once it is back they arrive.
	waitFor(t, ns, "faults", time.Minute, "ResultsUploaded=False", func(sb *sbv1.SpiralBench) bool {
		c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == sbv1.ReasonUploadFailed
	})
	s3(t, "up")
	sb = waitFor(t, ns, "faults", 3*time.Minute, "ResultsUploaded=True after the bucket came back", func(sb *sbv1.SpiralBench) bool {
		return meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
	})
	rows, err := csv.NewReader(bytes.NewReader(object(t, fmt.Sprintf("e2e/%s/faults/%s/runs.csv", ns, sb.Status.Artifacts.RunID)))).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Errorf("runs.csv after the outage: %d rows, %v", len(rows), err)
	}
}

func TestTheClusterRefusesAnInvalidManifestWithItsMessage(t *testing.T) {
	requireStack(t)
	out, err := exec.Command("kubectl", "apply", "-f", repoRoot+"/test/integration/testdata/invalid/05-udp-payload-over-mtu.yaml").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "each of matrix.payloadBytes must be at most topology.mtu - 28") {
		t.Errorf("kubectl apply must fail with the rule's message: %v\n%s", err, out)
	}
}

// A RawEthernet bench over DPDK's in-memory net_ring device (TX queue i feeds RX queue i): the
// real DPDK engine in a real pod on the local cluster, without a NIC or huge pages.
func TestRawEthernetOverAVirtualDeviceCompletes(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	w := sbtesting.MakeSpiralBench("raw", ns).Transport(sbv1.TransportRawEthernet).Payloads(1000).Batches(32).
		Queues(sbv1.QueueCell{TX: 1, RX: 1}, sbv1.QueueCell{TX: 2, RX: 2}).
		Rule(sbv1.AcceptanceRule{Name: "lossless", Metric: sbv1.MetricDrops, Operator: sbv1.OperatorEqual, Value: 0,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	w.Spec.RawEthernet = &sbv1.RawEthernetSpec{TXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}, RXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}}
	if err := k8s.Create(context.Background(), quick(w, 2, 1, 1)); err != nil {
		t.Fatal(err)
	}
	sb := waitFor(t, ns, "raw", 4*time.Minute, "raw Completed", finished)
	if sb.Status.Cells.Succeeded != 2 {
		t.Fatalf("cells %+v: %+v", sb.Status.Cells, sb.Status.CellResults)
	}
	for _, c := range sb.Status.CellResults {
		if c.RXMbps == nil || c.RXMbps.Mean <= 0 || c.PacketsPerSecond.Mean <= 0 || c.Drops != 0 {
			t.Errorf("cell %d (%d,%d): %+v", c.Index, c.Parameters.Queues.TX, c.Parameters.Queues.RX, c)
		}
	}
	if !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionPassed) {
		t.Errorf("an in-memory ring loses nothing: %+v", meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed))
	}
}

// The QueueScaling preset as shipped, over an in-memory ring without huge pages: every cell's
// memory plan fits the pod (it once failed 9 of 20 cells with ENOMEM and still read Passed).
func TestQueueScalingPresetOverAVirtualDeviceWithoutHugePages(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	w := sbtesting.MakeSpiralBench("queues", ns).Transport(sbv1.TransportRawEthernet).Preset(sbv1.PresetQueueScaling)
	w.Spec.RawEthernet = &sbv1.RawEthernetSpec{TXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}, RXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}}
	if err := k8s.Create(context.Background(), quick(w, 1, 1, 0)); err != nil {
		t.Fatal(err)
	}
	sb := waitFor(t, ns, "queues", 8*time.Minute, "queues finished", finished)
	if sb.Status.Cells.Total < 20 || sb.Status.Cells.Succeeded != sb.Status.Cells.Total {
		for _, c := range sb.Status.CellResults {
			if c.Message != "" {
				t.Logf("cell %d: %s", c.Index, c.Message)
			}
		}
		t.Fatalf("cells %+v: every cell of the preset must run without huge pages", sb.Status.Cells)
	}
	if !meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionPassed) {
		t.Errorf("Passed: %+v", meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed))
	}
}
