package cellpod

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func input(sb *sbv1.SpiralBench) Input {
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		panic(err)
	}
	sb.Spec.Run = sbv1.RunSpec{Seconds: 30, WarmupSeconds: ptr.To[int32](2), Repeats: 3}
	in, err := NewInput(sb, cells[0], 1, 1, 2, []string{"spark-a"})
	if err != nil {
		panic(err)
	}
	in.DefaultImage = "spiralbench/dataplane:dev"
	return in
}

// build returns the pod of the rank with this name.
func build(in Input, name, rendezvous string) *corev1.Pod {
	for _, r := range in.Ranks {
		if r.Name == name {
			return Build(in, r, rendezvous)
		}
	}
	panic("no rank " + name)
}

func argValue(args []string, flag string) (string, bool) {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func TestServerPodIsPinnedBoundedAndReadinessGated(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
	sb.Spec.Topology.Placement = &sbv1.Placement{NodeSelector: map[string]string{"gpu": "gb10"},
		Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}}
	sb.Spec.Topology.Server.Cores = &sbv1.CoreMap{Master: ptr.To[int32](8), Pollers: []int32{16, 17}}
	pod := build(input(sb), RoleServer, "")

	if pod.Name != "tcp-c0-a2-server" || pod.Labels[LabelRepeat] != "1" || pod.Labels[LabelAttempt] != "2" {
		t.Errorf("name/labels: %s %v", pod.Name, pod.Labels)
	}
	if *pod.Spec.ActiveDeadlineSeconds != 2+30+StartupAllowanceSeconds || *pod.Spec.AutomountServiceAccountToken {
		t.Errorf("deadline %d, token automount %v", *pod.Spec.ActiveDeadlineSeconds, *pod.Spec.AutomountServiceAccountToken)
	}
	terms := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || terms[0].MatchFields[0].Values[0] != "spark-a" || pod.Spec.NodeSelector["gpu"] != "gb10" || len(pod.Spec.Tolerations) != 1 {
		t.Errorf("placement: %+v selector %v", terms, pod.Spec.NodeSelector)
	}
	c := pod.Spec.Containers[0]
	if c.ReadinessProbe == nil || c.Image != "spiralbench/dataplane:dev" || c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("container: %+v", c)
	}
	if c.SecurityContext.Privileged != nil || len(c.SecurityContext.Capabilities.Add) != 4 {
		t.Errorf("security: %+v", c.SecurityContext)
	}
	args := c.Args
	if args[0] != "server" {
		t.Errorf("role first: %v", args)
	}
	for flag, want := range map[string]string{"--transport": "tcp", "--payload-bytes": "8000", "--pairs": "4", "--seconds": "30",
		"--warmup-seconds": "2", "--bind-address": "0.0.0.0", "--rx-cores": "16,17", "--master-core": "8",
		"--summary-file": "/dev/termination-log", "--ready-file": "/run/spiral/ready", "--workload": "none"} {
		if got, ok := argValue(args, flag); !ok || got != want {
			t.Errorf("%s = %q, want %q (args %v)", flag, got, want, args)
		}
	}
}

func TestClientPodConnectsToTheServerAndGetsItsOwnSide(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("udp", "lab").Transport(sbv1.TransportUDP).TargetsMbps(5000).Obj()
	sb.Spec.Topology.Client = sbv1.SideSpec{
		Networks: []sbv1.NetworkAttachment{{Name: "cx7-p0", Interface: "net1"}},
		Devices:  []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_vf", Count: 2}},
		Cores:    &sbv1.CoreMap{Pollers: []int32{3}}, Privileged: true,
	}
	sb.Spec.Socket = &sbv1.SocketSpec{UDPOffload: "GSOAndGRO"}
	pod := build(input(sb), RoleClient, "10.0.0.1")
	c := pod.Spec.Containers[0]
	if got, _ := argValue(c.Args, "--server-address"); got != "10.0.0.1" {
		t.Errorf("server address %q", got)
	}
	// The data plane's target is all pairs' together: 5 Gb/s per pair (the default scope,
	// DAQIRI's) x 4 pairs; with scope Total the 5 Gb/s is split across them.
	if got, _ := argValue(c.Args, "--target-mbps"); got != "20000" {
		t.Errorf("per-pair target x 4 pairs: --target-mbps %q, want 20000", got)
	}
	sb.Spec.Matrix.TargetRateScope = sbv1.TargetRateTotal
	if got, _ := argValue(build(input(sb), RoleClient, "10.0.0.1").Spec.Containers[0].Args, "--target-mbps"); got != "5000" {
		t.Errorf("total target: --target-mbps %q, want 5000", got)
	}
	joined := strings.Join(c.Args, " ")
	if !strings.Contains(joined, "--udp-gso") || !strings.Contains(joined, "--udp-gro") || !strings.Contains(joined, "--tx-cores 3") {
		t.Errorf("args %v", c.Args)
	}
	if c.ReadinessProbe != nil {
		t.Error("the client has no readiness barrier")
	}
	var nets []map[string]string
	if err := json.Unmarshal([]byte(pod.Annotations[MultusNetwork]), &nets); err != nil || nets[0]["name"] != "cx7-p0" || nets[0]["interface"] != "net1" {
		t.Errorf("multus annotation %q: %v", pod.Annotations[MultusNetwork], err)
	}
	if q := c.Resources.Limits["nvidia.com/cx7_vf"]; q.Value() != 2 {
		t.Errorf("device limit %v", c.Resources.Limits)
	}
	if c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged {
		t.Error("privileged when the side asks for it")
	}
}

func TestRawPodHoldsBothPortsHugepagesAndGPU(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("raw", "lab").Transport(sbv1.TransportRawEthernet).Obj()
	sb.Spec.Topology.Server = sbv1.SideSpec{Devices: []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p1", Count: 1}},
		Hugepages: &sbv1.HugepagesSpec{PageSize: "2Mi", Mebibytes: 2048}, GPUs: 1,
		Cores: &sbv1.CoreMap{Master: ptr.To[int32](8), Pollers: []int32{18}}}
	sb.Spec.Topology.Client = sbv1.SideSpec{Devices: []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p0", Count: 1}},
		Cores: &sbv1.CoreMap{Master: ptr.To[int32](9), Pollers: []int32{17}}}
	in := input(sb)
	if r := in.Ranks; len(r) != 1 || r[0].Name != RoleLoopback {
		t.Fatalf("raw runs one loopback pod, got %v", r)
	}
	pod := build(in, RoleLoopback, "")
	c := pod.Spec.Containers[0]
	for _, name := range []corev1.ResourceName{"nvidia.com/cx7_p0", "nvidia.com/cx7_p1", "nvidia.com/gpu"} {
		if q := c.Resources.Limits[name]; q.Value() != 1 {
			t.Errorf("limit %s = %v", name, q)
		}
	}
	if strings.Contains(strings.Join(c.Args, " "), "--no-huge") {
		t.Error("with huge pages requested, DPDK must use them")
	}
	if q := c.Resources.Limits["hugepages-2Mi"]; q.String() != "2Gi" {
		t.Errorf("hugepages %v", q.String())
	}
	joined := strings.Join(c.Args, " ")
	if !strings.Contains(joined, "--batch 10240") || !strings.Contains(joined, "--rx-cores 18") || !strings.Contains(joined, "--tx-cores 17") ||
		strings.Count(joined, "--master-core") != 1 || !strings.Contains(joined, "--master-core 8") {
		t.Errorf("args %v", c.Args)
	}
	found := false
	for _, v := range pod.Spec.Volumes {
		found = found || (v.EmptyDir != nil && v.EmptyDir.Medium == "HugePages-2Mi")
	}
	if !found {
		t.Error("no hugepages volume")
	}
}

// Requests, which the controller checks against the nodes before it leases one, is what the
// built pod asks for, huge pages and their memory included.
func TestRequestsAreWhatThePodAsks(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("raw", "lab").Transport(sbv1.TransportRawEthernet).Obj()
	sb.Spec.Topology.Server = sbv1.SideSpec{Devices: []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p1", Count: 1}},
		Hugepages: &sbv1.HugepagesSpec{PageSize: "1Gi", Mebibytes: 4096}, GPUs: 2}
	sb.Spec.Topology.Client = sbv1.SideSpec{Devices: []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_p0", Count: 1}}}
	in := input(sb)
	got := Requests(sb, in.Ranks[0])
	want := build(in, in.Ranks[0].Name, "").Spec.Containers[0].Resources.Requests
	if len(got) != 5 || len(got) != len(want) {
		t.Fatalf("requests %v, the pod asks %v", got, want)
	}
	for name, q := range want {
		if g := got[name]; g.Cmp(q) != 0 {
			t.Errorf("%s: Requests says %v, the pod asks %v", name, g.String(), q.String())
		}
	}
}

func TestCrossNodeSidesGoToTheirOwnNodes(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("x", "lab").Transport(sbv1.TransportTCP).Mode(sbv1.TopologyCrossNode).Obj()
	in := input(sb)
	in.Nodes = []string{"spark-a", "spark-b"}
	for role, node := range map[string]string{RoleServer: "spark-a", RoleClient: "spark-b"} {
		pod := build(in, role, "10.0.0.1")
		got := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
		if got != node {
			t.Errorf("%s on %s, want %s", role, got, node)
		}
	}
}

func TestTransportAndWorkloadFlags(t *testing.T) {
	raw := sbtesting.MakeSpiralBench("raw", "lab").Transport(sbv1.TransportRawEthernet).Obj()
	raw.Spec.RawEthernet = &sbv1.RawEthernetSpec{Memory: sbv1.MemoryHostPinned, RXPort: &sbv1.PortSource{VirtualDevice: "net_ring1"}, RingDescriptors: 4096}
	raw.Spec.Topology.Client.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7-p0.vf"}}
	raw.Spec.Topology.Client.Cores = &sbv1.CoreMap{Workers: []int32{16, 6}}
	args := strings.Join(build(input(raw), RoleLoopback, "").Spec.Containers[0].Args, " ")
	for _, want := range []string{"--tx-port env:PCIDEVICE_NVIDIA_COM_CX7_P0_VF", "--rx-port net_ring1", "--memory host_pinned",
		"--ring-descriptors 4096", "--tx-workers 16,6", "--tx-queues 1 --rx-queues 1", "--no-huge"} {
		if !strings.Contains(args, want) {
			t.Errorf("raw args lack %q: %s", want, args)
		}
	}

	roce := sbtesting.MakeSpiralBench("roce", "lab").Transport(sbv1.TransportRoCE).
		RoCE(sbv1.RoCESpec{Verb: sbv1.RoCEVerbWrite, Mode: sbv1.RoCEModeLatency, QueuePairs: 1, TXDepth: 128}).Obj()
	roce.Spec.Topology.Client.Networks = []sbv1.NetworkAttachment{{Name: "cx7-p0", Interface: "net1"}}
	args = strings.Join(build(input(roce), RoleClient, "10.0.0.1").Spec.Containers[0].Args, " ")
	for _, want := range []string{"--transport roce", "--verb write --mode latency --queue-pairs 1 --memory host", "--tx-depth 128", "--netdev net1"} {
		if !strings.Contains(args, want) {
			t.Errorf("roce args lack %q: %s", want, args)
		}
	}
	if strings.Contains(args, "--pairs") {
		t.Errorf("pairs are for sockets only: %s", args)
	}

	for _, transport := range []sbv1.Transport{sbv1.TransportTCP, sbv1.TransportUDP} {
		lat := sbtesting.MakeSpiralBench("lat", "lab").Transport(transport).Obj()
		lat.Spec.Socket = &sbv1.SocketSpec{Mode: sbv1.SocketModeLatency, Wait: sbv1.SocketWaitSpin, BusyPollMicroseconds: 50}
		lat.Spec.Matrix.Pairs = []int32{1}
		for _, role := range []string{RoleServer, RoleClient} {
			args = strings.Join(build(input(lat), role, "10.0.0.1").Spec.Containers[0].Args, " ")
			if !strings.Contains(args, "--mode latency --wait spin --busy-poll-us 50") || !strings.Contains(args, "--pairs 1") {
				t.Errorf("%s %s latency args: %s", transport, role, args)
			}
		}
		lat.Spec.Socket = &sbv1.SocketSpec{Mode: sbv1.SocketModeLatency}
		if args = strings.Join(build(input(lat), RoleClient, "10.0.0.1").Spec.Containers[0].Args, " "); !strings.Contains(args, "--mode latency --wait blocking") || strings.Contains(args, "--busy-poll-us") {
			t.Errorf("%s latency blocking args: %s", transport, args)
		}
		lat.Spec.Socket = &sbv1.SocketSpec{}
		if args = strings.Join(build(input(lat), RoleClient, "10.0.0.1").Spec.Containers[0].Args, " "); strings.Contains(args, "--mode") {
			t.Errorf("%s bandwidth args name a mode: %s", transport, args)
		}
	}

	gpu := sbtesting.MakeSpiralBench("gpu", "lab").Transport(sbv1.TransportUDP).Workload(sbv1.WorkloadGEMMFP16).ServerGPUs(1).Obj()
	gpu.Spec.Workload.GEMMN, gpu.Spec.Workload.SyncInterval, gpu.Spec.Workload.MaxInFlight, gpu.Spec.Workload.BatchBytes = 1024, 2, 3, 4<<20
	args = strings.Join(build(input(gpu), RoleServer, "").Spec.Containers[0].Args, " ")
	for _, want := range []string{"--workload gemm_fp16", "--sync-interval 2 --max-in-flight 3", "--gemm-n 1024", "--workload-batch-bytes 4194304"} {
		if !strings.Contains(args, want) {
			t.Errorf("workload args lack %q: %s", want, args)
		}
	}
}
