package benchctrl

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// transportFourRanks is a test-only kind: four ranks, rank 0 the rendezvous, two receivers
// and two senders. It exists in this test binary alone (the API's enum does not list it; the
// fake client does not enforce it) to show the controller handles N ranks, as NCCL will need.
const transportFourRanks sbv1.Transport = "FourRanksForTest"

func init() {
	benchkind.Register(benchkind.Profile{
		Transport: transportFourRanks, DataplaneTransport: "four", Backend: "four",
		Headline: sbv1.CellParameters{PayloadBytes: 1024, Batch: 1, Pairs: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}},
		Ranks: func(*sbv1.SpiralBenchSpec) []benchkind.Rank {
			rank := func(name string, rx bool) benchkind.Rank {
				return benchkind.Rank{Name: name, Role: "rank", Sides: []benchkind.Side{benchkind.SideServer}, Receives: rx, Sends: !rx}
			}
			return []benchkind.Rank{rank("rank0", true), rank("rank1", false), rank("rank2", true), rank("rank3", false)}
		},
	})
}

func TestTwoRanksClientStartsOnceTheServersContainerRuns(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("pair", "lab").UID("u1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))

	got := h.reconcile()
	pods := h.pods()
	if len(pods) != 1 || pods[cellpod.RoleServer] == nil || got.Status.ActiveAttempt == nil {
		t.Fatalf("first the server alone, got pods %v, active %+v", keys(pods), got.Status.ActiveAttempt)
	}
	if n := got.Status.Nodes; len(n) != 1 || n[0] != "spark-a" || len(h.leases()) != 1 {
		t.Fatalf("one node leased: %v, leases %d", n, len(h.leases()))
	}

	h.setStatus(sbtesting.WrapPod(pods[cellpod.RoleServer]).Creating("10.0.0.5").Obj())
	h.reconcile()
	if pods = h.pods(); len(pods) != 1 {
		t.Fatalf("a server whose container is still being created keeps the client back, got %v", keys(pods))
	}

	// Not Ready yet: the client starts while the server sets up and retries its connect until
	// the server listens.
	h.setStatus(sbtesting.WrapPod(pods[cellpod.RoleServer]).Running("10.0.0.5").Obj())
	h.reconcile()
	pods = h.pods()
	client := pods[cellpod.RoleClient]
	if client == nil {
		t.Fatalf("the client starts once the server's container runs, got %v", keys(pods))
	}
	if addr := argValue(client.Spec.Containers[0].Args, "--server-address"); addr != "10.0.0.5" {
		t.Errorf("the client connects to the server's pod IP, got %q", addr)
	}

	h.setStatus(sbtesting.WrapPod(client).Succeeded(sbtesting.MakeSummary("client").TXMbps(9100).JSON()).Obj())
	h.setStatus(sbtesting.WrapPod(pods[cellpod.RoleServer]).Succeeded(sbtesting.MakeSummary("server").RXMbps(9000).Drops(3, "tcp-nstat-retrans+inerrs").JSON()).Obj())
	got = h.reconcile()
	res := cell0(got)
	if got.Status.ActiveAttempt != nil || len(res.RepeatResults) != 1 {
		t.Fatalf("the attempt is judged once both ended: active %+v, result %+v", got.Status.ActiveAttempt, res)
	}
	rep := res.RepeatResults[0]
	if rep.State != sbv1.CellValid || rep.RXMbps != 9000 || rep.TXMbps != 9100 || rep.Drops != 3 {
		t.Errorf("RX from the server, TX from the client: %+v", rep)
	}
}

// With its address known before it runs (a host-network server: its node's address), the
// client starts with the server instead of after the kubelet reports it running, and waits for
// its listen as long as the attempt may last: the server's image may still be pulling.
func TestHostNetworkClientStartsWithItsServer(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("pair", "lab").UID("u1").Obj()
	sb.Spec.Topology.Server.HostNetwork, sb.Spec.Topology.Client.HostNetwork = true, true
	node := sbtesting.ReadyNode("spark-a")
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "spark-a"}, {Type: corev1.NodeInternalIP, Address: "192.0.2.7"}}
	h := newHarness(t, sb, node)
	h.r.PrivilegedNamespaces = []string{"lab"}

	h.reconcile()
	h.reconcile() // the server's pod exists, nothing reported of it yet
	pods := h.pods()
	client := pods[cellpod.RoleClient]
	if client == nil || pods[cellpod.RoleServer] == nil || pods[cellpod.RoleServer].Status.Phase != "" {
		t.Fatalf("the client starts before the server is reported, got %v", keys(pods))
	}
	args := client.Spec.Containers[0].Args
	if addr := argValue(args, "--server-address"); addr != "192.0.2.7" {
		t.Errorf("the client connects to the node's InternalIP, got %q", addr)
	}
	cells, err := plan.Expand(&h.bench().Spec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := cellpod.NewInput(h.bench(), cells[0], 0, 1, 0, []string{"spark-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := argValue(args, "--connect-timeout-ms"), strconv.FormatInt(in.Deadline()*1000, 10); got != want {
		t.Errorf("the client retries its connect for the attempt's deadline, %s ms; got %s", want, got)
	}
}

func TestOneRankRunsAloneWithoutABarrier(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("raw", "lab").Transport(sbv1.TransportRawEthernet).UID("u2").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	pods := h.pods()
	lo := pods[cellpod.RoleLoopback]
	if len(pods) != 1 || lo == nil {
		t.Fatalf("one loopback pod, got %v", keys(pods))
	}
	args := lo.Spec.Containers[0].Args
	if argValue(args, "--ready-file") == "" || argValue(args, "--bind-address") != "" || argValue(args, "--server-address") != "" {
		t.Errorf("a lone rank writes its ready file and neither binds nor connects: %v", args)
	}
	h.setStatus(sbtesting.WrapPod(lo).Ready("10.0.0.7").Obj())
	if h.reconcile(); len(h.pods()) != 1 {
		t.Fatalf("no peers to start: %v", keys(h.pods()))
	}
	lo = h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7100).JSON()).Obj())
	res := cell0(h.reconcile())
	if len(res.RepeatResults) != 1 || res.RepeatResults[0].RXMbps != 7000 || res.RepeatResults[0].TXMbps != 7100 {
		t.Errorf("the one rank is receiver and sender: %+v", res)
	}
}

func TestNRanksStartTogetherBehindRankZero(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("four", "lab").Transport(transportFourRanks).UID("u3").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	pods := h.pods()
	if len(pods) != 1 || pods["rank0"] == nil {
		t.Fatalf("rank 0 first, alone: %v", keys(pods))
	}
	if args := pods["rank0"].Spec.Containers[0].Args; args[0] != "rank" || argValue(args, "--bind-address") != "0.0.0.0" || argValue(args, "--transport") != "four" {
		t.Errorf("rank 0 runs the kind's role, binds and accepts: %v", args)
	}
	h.setStatus(sbtesting.WrapPod(pods["rank0"]).Running("10.0.0.9").Obj())
	h.reconcile()
	pods = h.pods()
	if len(pods) != 4 {
		t.Fatalf("ranks 1..3 start together once rank 0's container runs: %v", keys(pods))
	}
	for _, name := range []string{"rank1", "rank2", "rank3"} {
		if addr := argValue(pods[name].Spec.Containers[0].Args, "--server-address"); addr != "10.0.0.9" {
			t.Errorf("%s reaches rank 0 at %q", name, addr)
		}
	}
	for name, p := range pods {
		s := sbtesting.MakeSummary(name)
		if name == "rank0" || name == "rank2" {
			s.RXMbps(1000)
		} else {
			s.TXMbps(1500)
		}
		if name == "rank3" {
			continue // still running
		}
		h.setStatus(sbtesting.WrapPod(p).Succeeded(s.JSON()).Obj())
	}
	if got := h.reconcile(); got.Status.ActiveAttempt == nil {
		t.Fatal("judged before every rank ended")
	}
	h.setStatus(sbtesting.WrapPod(pods["rank3"]).Succeeded(sbtesting.MakeSummary("rank3").TXMbps(1500).JSON()).Obj())
	res := cell0(h.reconcile())
	if len(res.RepeatResults) != 1 {
		t.Fatalf("one repeat: %+v", res)
	}
	if rep := res.RepeatResults[0]; rep.RXMbps != 2000 || rep.TXMbps != 3000 {
		t.Errorf("RX summed over the two receivers, TX over the two senders: %+v", rep)
	}
}

func TestRankZeroRefusingItsInputFailsTheCellWithoutRetry(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("bad", "lab").UID("u4").Obj()
	sb.Spec.Run.RetriesPerCell = new(int32)
	*sb.Spec.Run.RetriesPerCell = 3
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	srv := h.pods()[cellpod.RoleServer]
	h.setStatus(sbtesting.WrapPod(srv).Exited(2, "spiral-dataplane: cores.master: core 8 is not in this pod's cpuset").Obj())
	res := cell0(h.reconcile())
	if res.State != sbv1.CellFailed || res.Attempts != 1 || !strings.Contains(res.Message, "server refused its input: spiral-dataplane: cores.master") {
		t.Errorf("bad input is final: %+v", res)
	}
}

func TestDeletedRankZeroFailsTheAttemptAndRetries(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gone", "lab").UID("u5").Obj()
	sb.Spec.Run.RetriesPerCell = new(int32)
	*sb.Spec.Run.RetriesPerCell = 1
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	if err := h.c.Delete(t.Context(), h.pods()[cellpod.RoleServer]); err != nil {
		t.Fatal(err)
	}
	got := h.reconcile()
	res := cell0(got)
	if got.Status.ActiveAttempt != nil || res.Attempts != 1 || res.Message != "retrying: the server pod was deleted before it finished" {
		t.Fatalf("a deleted rank 0 ends the attempt and it is retried: %+v", res)
	}
	got = h.reconcile()
	if a := got.Status.ActiveAttempt; a == nil || a.Attempt != 1 || h.pods()[cellpod.RoleServer] == nil {
		t.Errorf("the retry starts attempt 1 with a new server: %+v %v", a, keys(h.pods()))
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The attempt is judged once every rank's container has exited, while the kubelet still shows
// the pods Running (it sets the terminal phase only after stopping the sandbox); one rank's exit
// alone does not end it.
func TestAttemptIsJudgedOnceTheContainersExitBeforeThePodsTurnTerminal(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("exits", "lab").UID("u9").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	h.setStatus(sbtesting.WrapPod(h.pods()[cellpod.RoleServer]).Ready("10.0.0.5").Obj())
	h.reconcile()
	pods := h.pods()
	srv, cli := pods[cellpod.RoleServer], pods[cellpod.RoleClient]
	if cli == nil {
		t.Fatalf("no client: %v", keys(pods))
	}
	h.setStatus(sbtesting.WrapPod(cli).ContainerExited(0, sbtesting.MakeSummary("client").TXMbps(9100).JSON()).Obj())
	if got := h.reconcile(); got.Status.ActiveAttempt == nil {
		t.Fatal("judged while the server's container still ran")
	}
	h.setStatus(sbtesting.WrapPod(srv).ContainerExited(0, sbtesting.MakeSummary("server").RXMbps(9000).JSON()).Obj())
	got := h.reconcile()
	res := cell0(got)
	if got.Status.ActiveAttempt != nil || len(res.RepeatResults) != 1 || res.RepeatResults[0].RXMbps != 9000 {
		t.Fatalf("both containers exited, pods still Running: want the attempt judged, got active %+v, result %+v", got.Status.ActiveAttempt, res)
	}
	if res.State != sbv1.CellValid {
		t.Errorf("state %s: %s", res.State, res.Message)
	}
}
