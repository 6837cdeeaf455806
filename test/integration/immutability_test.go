package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

const (
	measuredImmutable   = "a started bench keeps measuring the same thing"
	placementImmutable  = "placement (topology.placement, topology.server.placement, topology.client.placement) is fixed once the first cell has started"
	acceptanceImmutable = "spec.acceptance is fixed once the bench has started"
)

// mutation changes one field of a bench; the table names it by its path in the spec.
type mutation struct {
	field  string
	mutate func(*sbv1.SpiralBench)
}

// sideMutations change every field of one side that reaches the pod or the data plane.
func sideMutations(name string, side func(*sbv1.SpiralBench) *sbv1.SideSpec) []mutation {
	p := "topology." + name + "."
	return []mutation{
		{p + "hostNetwork", func(s *sbv1.SpiralBench) { side(s).HostNetwork, side(s).Networks = true, nil }},
		{p + "networks", func(s *sbv1.SpiralBench) {
			side(s).Networks = append(side(s).Networks, sbv1.NetworkAttachment{Name: "other", Interface: "net9"})
		}},
		{p + "address", func(s *sbv1.SpiralBench) { side(s).Address = "10.9.9.9" }},
		{p + "devices", func(s *sbv1.SpiralBench) { side(s).Devices[0].Count++ }},
		{p + "hugepages", func(s *sbv1.SpiralBench) { side(s).Hugepages.Mebibytes += 2 }},
		{p + "gpus", func(s *sbv1.SpiralBench) { side(s).GPUs++ }},
		{p + "cores.master", func(s *sbv1.SpiralBench) { side(s).Cores.Master = ptr.To(*side(s).Cores.Master + 40) }},
		{p + "cores.pollers", func(s *sbv1.SpiralBench) { side(s).Cores.Pollers = append(side(s).Cores.Pollers, 63) }},
		{p + "cores.workers", func(s *sbv1.SpiralBench) { side(s).Cores.Workers = []int32{62} }},
		{p + "privileged", func(s *sbv1.SpiralBench) { side(s).Privileged = true }},
	}
}

// udpBench sets every field a UDP bench can carry, so each mutation changes a value.
func udpBench(name, ns string) *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench(name, ns).Transport(sbv1.TransportUDP).Payloads(1000, 8000).Pairs(1, 2).
		Workload(sbv1.WorkloadFFT).ServerGPUs(1).Obj()
	sb.Spec.Socket = &sbv1.SocketSpec{UDPOffload: "GRO", BufferBytes: 1 << 20}
	sb.Spec.Image = "spiralbench/dataplane:a"
	sb.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	sb.Spec.PriorityClassName = "bench"
	sb.Spec.Topology.Placement = &sbv1.Placement{NodeSelector: map[string]string{"gpu": "gb10"}}
	for i, side := range []*sbv1.SideSpec{&sb.Spec.Topology.Server, &sb.Spec.Topology.Client} {
		base := int32(16 + 8*i)
		side.Networks = []sbv1.NetworkAttachment{{Name: "cx7", Interface: "net1"}}
		side.Address = "10.0.0.1"
		side.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_vf", Count: 1}}
		side.Hugepages = &sbv1.HugepagesSpec{PageSize: "2Mi", Mebibytes: 1024}
		side.GPUs = 1
		side.Cores = &sbv1.CoreMap{Master: ptr.To(int32(8 + i)), Pollers: []int32{base, base + 1}, Workers: []int32{base + 2}}
	}
	return sb
}

func immutableUDPFields() []mutation {
	out := []mutation{
		{"transport", func(s *sbv1.SpiralBench) {
			s.Spec.Transport = sbv1.TransportTCP
			s.Spec.Socket = nil
			s.Spec.Matrix.Pairs = nil
		}},
		{"socket.udpOffload", func(s *sbv1.SpiralBench) { s.Spec.Socket.UDPOffload = "None" }},
		{"socket.bufferBytes", func(s *sbv1.SpiralBench) { s.Spec.Socket.BufferBytes = 0 }},
		{"socket (removed)", func(s *sbv1.SpiralBench) { s.Spec.Socket = nil }},
		{"matrix.preset", func(s *sbv1.SpiralBench) { s.Spec.Matrix.Preset = sbv1.PresetSweep }},
		{"matrix.payloadBytes", func(s *sbv1.SpiralBench) { s.Spec.Matrix.PayloadBytes = []int32{1000} }},
		{"matrix.pairs", func(s *sbv1.SpiralBench) { s.Spec.Matrix.Pairs = []int32{4} }},
		{"matrix.targetRatesMbps", func(s *sbv1.SpiralBench) { s.Spec.Matrix.TargetRatesMbps = []int32{1000} }},
		{"matrix.workloads", func(s *sbv1.SpiralBench) { s.Spec.Matrix.Workloads = []sbv1.WorkloadKind{sbv1.WorkloadGEMM} }},
		{"matrix.workloadBatchBytes", func(s *sbv1.SpiralBench) { s.Spec.Matrix.WorkloadBatchBytes = []int32{1 << 20} }},
		{"workload.kind", func(s *sbv1.SpiralBench) { s.Spec.Workload.Kind = sbv1.WorkloadGEMM }},
		{"workload.gemmN", func(s *sbv1.SpiralBench) { s.Spec.Workload.GEMMN = 2048 }},
		{"workload.fftLength", func(s *sbv1.SpiralBench) { s.Spec.Workload.FFTLength = 4096 }},
		{"workload.batchBytes", func(s *sbv1.SpiralBench) { s.Spec.Workload.BatchBytes = 1 << 20 }},
		{"workload.syncInterval", func(s *sbv1.SpiralBench) { s.Spec.Workload.SyncInterval = 8 }},
		{"workload.maxInFlight", func(s *sbv1.SpiralBench) { s.Spec.Workload.MaxInFlight = 4 }},
		{"workload (removed)", func(s *sbv1.SpiralBench) { s.Spec.Workload = nil }},
		{"run.seconds", func(s *sbv1.SpiralBench) { s.Spec.Run.Seconds = 5 }},
		{"run.warmupSeconds", func(s *sbv1.SpiralBench) { s.Spec.Run.WarmupSeconds = ptr.To[int32](0) }},
		{"run.repeats", func(s *sbv1.SpiralBench) { s.Spec.Run.Repeats = 5 }},
		{"run.cellDeadlineSeconds", func(s *sbv1.SpiralBench) { s.Spec.Run.CellDeadlineSeconds = ptr.To[int32](600) }},
		{"run.retriesPerCell", func(s *sbv1.SpiralBench) { s.Spec.Run.RetriesPerCell = ptr.To[int32](3) }},
		{"image", func(s *sbv1.SpiralBench) { s.Spec.Image = "spiralbench/dataplane:b" }},
		{"imagePullSecrets", func(s *sbv1.SpiralBench) { s.Spec.ImagePullSecrets = nil }},
		{"priorityClassName", func(s *sbv1.SpiralBench) { s.Spec.PriorityClassName = "" }},
		{"topology.mtu", func(s *sbv1.SpiralBench) { s.Spec.Topology.MTU = 8500 }},
		{"topology.mode", func(s *sbv1.SpiralBench) {
			pl := s.Spec.Topology.Placement
			s.Spec.Topology.Mode, s.Spec.Topology.Placement = sbv1.TopologyCrossNode, nil
			s.Spec.Topology.Server.Placement, s.Spec.Topology.Client.Placement = pl.DeepCopy(), pl.DeepCopy()
		}},
	}
	out = append(out, sideMutations("server", func(s *sbv1.SpiralBench) *sbv1.SideSpec { return &s.Spec.Topology.Server })...)
	return append(out, sideMutations("client", func(s *sbv1.SpiralBench) *sbv1.SideSpec { return &s.Spec.Topology.Client })...)
}

// markStarted writes the status the cell runner writes: phase Running, and startTime only
// when firstCell (a cell has started).
func markStarted(t *testing.T, sb *sbv1.SpiralBench, firstCell bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return err
		}
		cur.Status.Phase, cur.Status.StartTime = sbv1.PhaseRunning, nil
		if firstCell {
			cur.Status.StartTime = &metav1.Time{Time: time.Now()}
		}
		return k8sClient.Status().Update(context.Background(), cur)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tryUpdate applies mutate to the stored bench and updates it, retrying on the controller's
// conflicting status writes.
func tryUpdate(sb *sbv1.SpiralBench, mutate func(*sbv1.SpiralBench)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return err
		}
		mutate(cur)
		return k8sClient.Update(context.Background(), cur)
	})
}

// Once a bench has started, every field that shapes a measurement is refused with one message
// that names what may change; each of those may.
func TestEveryMeasuredFieldIsImmutableOnceStarted(t *testing.T) {
	requireEnv(t)
	ns := privilegedNamespace(t) // the table turns on privileged and hostNetwork while Pending
	ctx := context.Background()
	sb := udpBench("started", ns)
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	waitAccepted(t, ns, "started", 4)

	// While Pending everything may change: the table's mutations are admissible specs.
	for _, m := range immutableUDPFields() {
		if err := tryUpdate(sb, m.mutate); err != nil {
			t.Errorf("%s: a Pending bench must accept the change: %v", m.field, err)
		}
		if err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec = udpBench("started", ns).Spec }); err != nil {
			t.Fatalf("%s: restoring the spec: %v", m.field, err)
		}
	}

	for _, m := range immutableUDPFields() {
		// Again each time, with startTime: a queued bench that no cell has run is not started,
		// and the controller requeues a bench that waits for a node.
		markStarted(t, sb, true)
		err := tryUpdate(sb, m.mutate)
		if err == nil || !strings.Contains(err.Error(), measuredImmutable) {
			t.Errorf("changing %s of a started bench: want %q, got %v", m.field, measuredImmutable, err)
		}
	}

	markStarted(t, sb, false)
	allowed := []mutation{
		{"topology.placement (no cell has run)", func(s *sbv1.SpiralBench) {
			s.Spec.Topology.Placement = &sbv1.Placement{NodeName: "spark-b"}
		}},
		{"suspend", func(s *sbv1.SpiralBench) { s.Spec.Suspend = ptr.To(true) }},
		{"results", func(s *sbv1.SpiralBench) {
			s.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://s3.example:9000", Bucket: "results",
				CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
		}},
		{"ttlSecondsAfterFinished", func(s *sbv1.SpiralBench) { s.Spec.TTLSecondsAfterFinished = ptr.To[int32](60) }},
	}
	for _, m := range allowed {
		if err := tryUpdate(sb, m.mutate); err != nil {
			t.Errorf("changing %s of a started bench must be allowed: %v", m.field, err)
		}
	}

	markStarted(t, sb, true)
	err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec.Topology.Placement = &sbv1.Placement{NodeName: "spark-c"} })
	if err == nil || !strings.Contains(err.Error(), placementImmutable) {
		t.Errorf("changing placement after the first cell started: want %q, got %v", placementImmutable, err)
	}
	if err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec.Suspend = ptr.To(false) }); err != nil {
		t.Errorf("suspend must stay changeable after the first cell: %v", err)
	}
}

// The options blocks of RoCE and RawEthernet are as fixed as the socket options, and so is a
// CrossNode side's placement once a cell ran.
func TestTransportOptionsAndSidePlacementAreImmutableOnceStarted(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	roce := sbtesting.MakeSpiralBench("roce", ns).Transport(sbv1.TransportRoCE).
		RoCE(sbv1.RoCESpec{Verb: sbv1.RoCEVerbSend, QueuePairs: 2, TXDepth: 128}).Obj()
	roce.Spec.Topology.Mode = sbv1.TopologyCrossNode
	// Selectors no node matches: the bench waits instead of running.
	roce.Spec.Topology.Server.Placement = &sbv1.Placement{NodeSelector: map[string]string{"spark": "a"}}
	roce.Spec.Topology.Client.Placement = &sbv1.Placement{NodeSelector: map[string]string{"spark": "b"}}
	raw := sbtesting.MakeSpiralBench("raw", ns).Transport(sbv1.TransportRawEthernet).Obj()
	raw.Spec.Topology.Placement = nowhere()
	raw.Spec.RawEthernet = &sbv1.RawEthernetSpec{RingDescriptors: 16384, TXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}}
	for _, sb := range []*sbv1.SpiralBench{roce, raw} {
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Fatal(err)
		}
		waitAccepted(t, ns, sb.Name, 1)
		markStarted(t, sb, true)
	}
	for _, c := range []struct {
		sb   *sbv1.SpiralBench
		m    mutation
		want string
	}{
		{roce, mutation{"roce.verb", func(s *sbv1.SpiralBench) { s.Spec.RoCE.Verb = sbv1.RoCEVerbWrite }}, measuredImmutable},
		{roce, mutation{"roce.queuePairs", func(s *sbv1.SpiralBench) { s.Spec.RoCE.QueuePairs = 4 }}, measuredImmutable},
		{roce, mutation{"roce.txDepth", func(s *sbv1.SpiralBench) { s.Spec.RoCE.TXDepth = 0 }}, measuredImmutable},
		{roce, mutation{"roce.memory", func(s *sbv1.SpiralBench) { s.Spec.RoCE.Memory = sbv1.MemoryHostPinned }}, measuredImmutable},
		{roce, mutation{"topology.server.placement", func(s *sbv1.SpiralBench) {
			s.Spec.Topology.Server.Placement.NodeSelector["spark"] = "c"
		}}, placementImmutable},
		{roce, mutation{"topology.client.placement", func(s *sbv1.SpiralBench) {
			s.Spec.Topology.Client.Placement = &sbv1.Placement{NodeSelector: map[string]string{"x": "y"}}
		}}, placementImmutable},
		{raw, mutation{"rawEthernet.ringDescriptors", func(s *sbv1.SpiralBench) { s.Spec.RawEthernet.RingDescriptors = 32768 }}, measuredImmutable},
		{raw, mutation{"rawEthernet.txPort", func(s *sbv1.SpiralBench) { s.Spec.RawEthernet.TXPort.VirtualDevice = "net_ring1" }}, measuredImmutable},
		{raw, mutation{"rawEthernet.memory", func(s *sbv1.SpiralBench) { s.Spec.RawEthernet.Memory = sbv1.MemoryHostPinned }}, measuredImmutable},
		{raw, mutation{"rawEthernet (removed)", func(s *sbv1.SpiralBench) { s.Spec.RawEthernet = nil }}, measuredImmutable},
	} {
		err := tryUpdate(c.sb, c.m.mutate)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("changing %s of a started bench: want %q, got %v", c.m.field, c.want, err)
		}
	}
}

// A spec written with explicit zero values (hostNetwork: false, gpus: 0, networks: []) reads
// back into Go without them; updating it from Go must not count as a change of those fields,
// or the controller could never remove its finalizer from such a bench.
func TestExplicitZeroValuesDoNotCountAsChanges(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "spiralbench.io/v1alpha1", "kind": "SpiralBench",
		"metadata": map[string]any{"name": "zeros", "namespace": ns},
		"spec": map[string]any{
			"transport": "TCP", "image": "", "priorityClassName": "", "imagePullSecrets": []any{},
			"topology": map[string]any{"placement": map[string]any{"nodeSelector": map[string]any{"spiralbench.io/no-such-node": "true"}}, "server": map[string]any{
				"hostNetwork": false, "privileged": false, "gpus": int64(0), "address": "",
				"networks": []any{}, "devices": []any{},
			}},
		},
	}}
	if err := k8sClient.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	sb := waitAccepted(t, ns, "zeros", 1)
	markStarted(t, sb, true)
	if err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec.Suspend = ptr.To(true) }); err != nil {
		t.Errorf("a Go update that only drops explicit zero values must be admitted: %v", err)
	}
}

// topology.links decides how many links a cell's pairs spread over, so it is as fixed as the
// networks it uses: free while Pending, refused once a cell ran.
func TestLinksAreImmutableOnceStarted(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	sb := sbtesting.MakeSpiralBench("links", ns).Transport(sbv1.TransportUDP).Payloads(8000).Pairs(2).Obj()
	sb.Spec.Topology.Links = 2
	sb.Spec.Topology.Placement = nowhere()
	for _, side := range []*sbv1.SideSpec{&sb.Spec.Topology.Server, &sb.Spec.Topology.Client} {
		side.Networks = []sbv1.NetworkAttachment{{Name: "cx7-a", Interface: "net1"}, {Name: "cx7-b", Interface: "net2"}}
	}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	waitAccepted(t, ns, "links", 1)
	if err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec.Topology.Links = 1 }); err != nil {
		t.Fatalf("a Pending bench must accept a change of topology.links: %v", err)
	}
	markStarted(t, sb, true)
	err := tryUpdate(sb, func(s *sbv1.SpiralBench) { s.Spec.Topology.Links = 2 })
	if err == nil || !strings.Contains(err.Error(), measuredImmutable) || !strings.Contains(err.Error(), "topology.links") {
		t.Errorf("changing topology.links of a started bench: want %q naming topology.links, got %v", measuredImmutable, err)
	}
}

// lossless is an acceptance the tests below set on a bench, to change its verdict's rules.
func lossless(s *sbv1.SpiralBench) {
	s.Spec.Acceptance = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{{
		Name: "lossless", Metric: sbv1.MetricLossPPM, Operator: sbv1.OperatorEqual, Value: 0}}}
}

// The verdict's rules are as fixed as what they judge: a completed bench keeps the Passed its
// acceptance gave, and other rules need a bench of their own.
func TestAcceptanceIsFixedOnceStarted(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	sb := sbtesting.MakeSpiralBench("judged", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1).Obj()
	sb.Spec.Topology.Placement = nowhere()
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	waitAccepted(t, ns, "judged", 1)
	if err := tryUpdate(sb, lossless); err != nil {
		t.Fatalf("a bench that has not started must accept new acceptance rules: %v", err)
	}
	for _, m := range []mutation{
		{"a rule's value", func(s *sbv1.SpiralBench) { lossless(s); s.Spec.Acceptance.Rules[0].Value = 10 }},
		{"allowFailedCells", func(s *sbv1.SpiralBench) { lossless(s); s.Spec.Acceptance.AllowFailedCells = true }},
		{"acceptance (removed)", func(s *sbv1.SpiralBench) { s.Spec.Acceptance = nil }},
	} {
		markStarted(t, sb, true) // each time: the controller requeues a bench that waits for a node
		err := tryUpdate(sb, m.mutate)
		if err == nil || !strings.Contains(err.Error(), acceptanceImmutable) || !strings.Contains(err.Error(), "create a new SpiralBench") {
			t.Errorf("changing %s of a started bench: want %q, got %v", m.field, acceptanceImmutable, err)
		}
	}
}

// Whatever in status says a cell started locks the spec, with or without a phase: a status
// written by another client, or restored without its phase, is no way around the rule.
func TestAStartedStatusWithoutAPhaseLocksTheSpec(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	now := metav1.Now()
	for name, status := range map[string]sbv1.SpiralBenchStatus{
		"startTime":     {StartTime: &now},
		"activeAttempt": {ActiveAttempt: &sbv1.ActiveAttempt{CellIndex: 0, Repeat: 0, Attempt: 0, StartTime: now}},
		"a cell result, Pending": {Phase: sbv1.PhasePending, CellResults: []sbv1.CellResult{{Index: 0, State: sbv1.CellValid, Repeats: 1, Attempts: 1,
			Parameters: sbv1.CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}, Workload: sbv1.WorkloadNone}}}},
	} {
		t.Run(name, func(t *testing.T) {
			sb := sbtesting.MakeSpiralBench("s-"+strings.ToLower(strings.Fields(name)[0]), ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1).Obj()
			sb.Spec.Topology.Placement = nowhere()
			if err := k8sClient.Create(context.Background(), sb); err != nil {
				t.Fatal(err)
			}
			waitAccepted(t, ns, sb.Name, 1)
			// The status and the update in one optimistic step: the update is judged against
			// exactly this status, never one the controller wrote in between (a conflict retries).
			var err error
			conflict := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur := &sbv1.SpiralBench{}
				if e := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); e != nil {
					return e
				}
				cur.Status = *status.DeepCopy()
				if e := k8sClient.Status().Update(context.Background(), cur); e != nil {
					return e
				}
				cur.Spec.Run.Repeats++
				lossless(cur)
				err = k8sClient.Update(context.Background(), cur)
				if apierrors.IsConflict(err) {
					return err
				}
				return nil
			})
			if conflict != nil {
				t.Fatal(conflict)
			}
			if err == nil || !strings.Contains(err.Error(), measuredImmutable) || !strings.Contains(err.Error(), acceptanceImmutable) {
				t.Errorf("status with %s: want %q and %q, got %v", name, measuredImmutable, acceptanceImmutable, err)
			}
		})
	}
}
