package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// ncclSummary is the termination message of one pod of NCCL ranks (role rank): the first pod's
// carries the sweep merged over every NCCL rank, with the transports NCCL reported.
func ncclSummary(role, state, reason string, withSweep bool) string {
	sweep := ""
	if withSweep {
		sweep = `,"nccl":{"op":"all_gather","ranks":2,"version":"2.28.9+cuda13.0","network":"IB",` +
			`"rows":[[8,0,20100,0,0,0],[134217728,0,11163000,12023,6011,0],[134217728,1,11020000,12179,6089,0]],` +
			`"peers":[[0,1,"NET/IB","NET/IB/0/GDRDMA"],[1,0,"NET/IB","NET/IB/0/GDRDMA"]]}`
	}
	return fmt.Sprintf(`{"v":1,"transport":"nccl","role":%q,"state":%q,"reason":%q,"seconds_milli":0,"payload_bytes":0,`+
		`"pairs":1,"target_mbps":0,"tx_packets":0,"tx_bytes":0,"rx_packets":0,"rx_bytes":0,"pps":0,"tx_mbps":0,"rx_mbps":0,`+
		`"drops":0,"drops_kind":"","loss_ppm":0,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,`+
		`"gpu_mem_mpct":-1%s}`, role, state, reason, sweep)
}

func crossNodeOnTestNodes(sb *sbv1.SpiralBench, server, client string) *sbv1.SpiralBench {
	place := func(node string) *sbv1.Placement {
		return &sbv1.Placement{NodeSelector: map[string]string{"spiralbench.io/test-node": node},
			Tolerations: []corev1.Toleration{{Key: "spiralbench.io/test", Operator: corev1.TolerationOpEqual, Value: node, Effect: corev1.TaintEffectNoSchedule}}}
	}
	sb.Spec.Topology.Mode = sbv1.TopologyCrossNode
	sb.Spec.Topology.Server.Placement, sb.Spec.Topology.Client.Placement = place(server), place(client)
	return sb
}

func gpuCount(p corev1.Pod) int64 {
	q := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]
	return q.Value()
}

// Seed 003 on two nodes: one pod per node holding its GPU and RDMA device, NCCL ranks numbered
// across the pods; rank 0's sweep and the transports NCCL chose reach status. Rank 0's address
// is fixed, so rank 1 is created with it before rank 0 runs, and retries its connect for the
// attempt's deadline rather than the usual 30 s.
func TestNCCLAcrossTwoNodesPlansAPodPerNodeAndReportsTheSweep(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	gpuTestNode(t, "nccl-node-a")
	gpuTestNode(t, "nccl-node-b")
	rdma := sbv1.DeviceResource{ResourceName: "rdma/rdma_shared_device_a", Count: 1}
	w := shortRun(sbtesting.MakeSpiralBench("nccl-ag", ns).Transport(sbv1.TransportNCCL).
		NCCL(sbv1.NCCLSpec{Operation: sbv1.NCCLAllGather, MinBytes: 8, MaxBytes: 128 << 20, StepFactor: 2, Network: sbv1.NCCLNetworkRDMA}).
		ServerGPUs(1).ClientGPUs(1).Devices(rdma), 1, 0)
	sb := crossNodeOnTestNodes(w.Obj(), "nccl-node-a", "nccl-node-b")
	sb.Spec.Topology.Server.Networks = []sbv1.NetworkAttachment{{Name: "cx7-p1", Interface: "net1"}}
	sb.Spec.Topology.Client.Networks = sb.Spec.Topology.Server.Networks
	sb.Spec.Topology.Server.Address = "192.168.88.248" // rank 0's address on the secondary network
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "nccl-ag", rankPods: 2, summary: func(cell, repeat int, role string) string {
		return ncclSummary(role, "Valid", "", role == "rank0")
	}}
	// Before anything runs: both ranks exist, each holding its GPU and device; rank 1 already
	// knows rank 0's fixed address.
	eventually(t, 30*time.Second, "both ranks' pods", func() (bool, string) {
		pods := podsOf(t, ns, "nccl-ag")
		return len(pods) == 2, fmt.Sprintf("%d pods", len(pods))
	})
	for _, p := range podsOf(t, ns, "nccl-ag") {
		if p.Status.Phase == corev1.PodRunning {
			t.Fatalf("%s runs before the stand-in started it", p.Name)
		}
		rdmaQ := p.Spec.Containers[0].Resources.Limits["rdma/rdma_shared_device_a"]
		if gpuCount(p) != 1 || rdmaQ.Value() != 1 {
			t.Errorf("%s resources: %+v", p.Name, p.Spec.Containers[0].Resources.Limits)
		}
	}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	r0, r1 := strings.Join(k.rankArgs["rank0"], " "), strings.Join(k.rankArgs["rank1"], " ")
	for _, want := range []string{"rank --transport nccl", "--op all_gather", "--max-bytes 134217728", "--gpus 1 --first-rank 0 --nranks 2",
		"--network rdma", "--socket-ifname net1", "--bind-address 192.168.88.248"} {
		if !strings.Contains(r0, want) {
			t.Errorf("rank0 args lack %q: %s", want, r0)
		}
	}
	if ms := argOf(k.rankArgs["rank1"], "--connect-timeout-ms"); ms == "" || ms == "30000" {
		t.Errorf("rank 1 starts before rank 0 listens, so it retries for the attempt's deadline, not 30 s: %q", ms)
	}
	for _, want := range []string{"--first-rank 1 --nranks 2", "--server-address 192.168.88.248"} {
		if !strings.Contains(r1, want) {
			t.Errorf("rank1 args lack %q: %s", want, r1)
		}
	}
	if p0, p1 := k.rankPodSpecs["rank0"], k.rankPodSpecs["rank1"]; gpuCount(p0) != 1 || gpuCount(p1) != 1 ||
		p0.Spec.Affinity == nil && len(p0.Spec.NodeSelector) == 0 || p1.Spec.NodeSelector["spiralbench.io/test-node"] != "nccl-node-b" {
		t.Errorf("one pod per node, each with its GPU: rank0 %+v / %+v, rank1 %+v", p0.Spec.NodeSelector, p0.Spec.Affinity, p1.Spec.NodeSelector)
	}
	c := sb.Status.CellResults[0]
	if c.State != sbv1.CellValid || len(c.RepeatResults) != 1 {
		t.Fatalf("cell: %+v", c)
	}
	col := c.RepeatResults[0].Collective
	if col == nil || col.Operation != sbv1.NCCLAllGather || len(col.Sizes) != 3 || col.Sizes[1].BusbwMBps != 6011 ||
		col.Sizes[1].Check != sbv1.NCCLCheckPassed || len(col.Peers) != 2 || col.Peers[0].Transport != "NET/IB" {
		t.Errorf("collective result: %+v", col)
	}
}

// One node with four GPUs: a single pod holding all of them, four NCCL ranks; a run NCCL made
// over sockets although RDMA was asked is recorded Invalid with NCCL's own words.
func TestNCCLOnOneNodeIsOnePodAndASocketRunIsInvalid(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	gpuTestNode(t, "nccl-node-c")
	w := shortRun(sbtesting.MakeSpiralBench("nccl-one", ns).Transport(sbv1.TransportNCCL).
		NCCL(sbv1.NCCLSpec{Operation: sbv1.NCCLAllReduce, Network: sbv1.NCCLNetworkRDMA}).ServerGPUs(4).
		Devices(sbv1.DeviceResource{ResourceName: "rdma/rdma_shared_device_a", Count: 1}), 1, 0)
	sb := onTestNode(w.Obj(), "nccl-node-c")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	why := "asked for RDMA, but NCCL connected rank 1 -> rank 0 over NET/Socket/0 (TCP sockets)"
	k := &kubeletStandIn{t: t, ns: ns, bench: "nccl-one", rankPods: 1, summary: func(cell, repeat int, role string) string {
		return ncclSummary(role, "Invalid", why, true)
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)
	if len(k.rankPodSpecs) != 1 || gpuCount(k.rankPodSpecs["rank0"]) != 4 {
		t.Fatalf("want one pod (rank0) with 4 GPUs, got %d pods", len(k.rankPodSpecs))
	}
	if a := strings.Join(k.rankArgs["rank0"], " "); !strings.Contains(a, "--gpus 4 --first-rank 0 --nranks 4") {
		t.Errorf("rank0 args: %s", a)
	}
	c := sb.Status.CellResults[0]
	if c.State == sbv1.CellValid || len(c.RepeatResults) == 0 || c.RepeatResults[0].State != sbv1.CellInvalid ||
		!strings.Contains(c.RepeatResults[0].Message, "NET/Socket") {
		t.Errorf("a socket run asked to be RDMA must be Invalid with the reason: %+v", c)
	}
}

// GPUCopy: one pod holding the node's GPUs.
func TestGPUCopyIsOnePodWithTheNodesGPUs(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	gpuTestNode(t, "copy-node")
	w := shortRun(sbtesting.MakeSpiralBench("copies", ns).Transport(sbv1.TransportGPUCopy).ServerGPUs(2).
		GPUCopy(sbv1.GPUCopySpec{Directions: []sbv1.CopyDirection{"H2D", "D2H"}, MinBytes: 1 << 20, MaxBytes: 8 << 20, StepFactor: 2}), 1, 0)
	if err := k8sClient.Create(context.Background(), onTestNode(w.Obj(), "copy-node")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the copy pod", func() (bool, string) {
		pods := podsOf(t, ns, "copies")
		return len(pods) == 1, fmt.Sprintf("%d pods", len(pods))
	})
	p := podsOf(t, ns, "copies")[0]
	args := strings.Join(p.Spec.Containers[0].Args, " ")
	if gpuCount(p) != 2 || !strings.Contains(args, "loopback --transport gpucopy") || !strings.Contains(args, "--directions h2d,d2h") ||
		!strings.Contains(args, "--max-bytes 8388608") {
		t.Errorf("copy pod: %d GPUs, args %s", gpuCount(p), args)
	}
}
