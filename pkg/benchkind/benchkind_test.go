package benchkind

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// apiTransports are the values spec.transport admits (api/v1alpha1, +kubebuilder:validation:Enum).
var apiTransports = []sbv1.Transport{sbv1.TransportRawEthernet, sbv1.TransportRoCE, sbv1.TransportTCP, sbv1.TransportUDP,
	sbv1.TransportNCCL, sbv1.TransportGPUCopy}

func TestEveryAdmittedTransportHasAKind(t *testing.T) {
	for _, tr := range apiTransports {
		if _, ok := Lookup(tr); !ok {
			t.Errorf("transport %s has no registered kind", tr)
		}
	}
	_, err := For(&sbv1.SpiralBenchSpec{Transport: "Carrier"})
	if err == nil || err.Error() != `unknown transport "Carrier": use GPUCopy, NCCL, RawEthernet, RoCE, TCP or UDP` {
		t.Errorf("unknown transport: %v", err)
	}
}

// TestRanksAreWellFormed checks what the controller and the pod builder rely on, for every
// kind in both topology modes: unique names, a side for each rank, a node slot for each
// rank, and someone who receives and someone who sends.
func TestRanksAreWellFormed(t *testing.T) {
	for _, tr := range Transports() {
		for _, mode := range []sbv1.TopologyMode{sbv1.TopologyLoopback, sbv1.TopologyCrossNode} {
			spec := &sbv1.SpiralBenchSpec{Transport: tr, Topology: sbv1.TopologySpec{Mode: mode}}
			ranks, err := Ranks(spec)
			if err != nil || len(ranks) == 0 {
				t.Fatalf("%s: %v %v", tr, ranks, err)
			}
			names := map[string]bool{}
			rx, tx := false, false
			for i, r := range ranks {
				if r.Index != i || r.Name == "" || r.Role == "" || names[r.Name] || len(r.Sides) == 0 {
					t.Errorf("%s %s rank %d malformed: %+v", tr, mode, i, r)
				}
				if r.Node < 0 || r.Node >= len(NodeSlots(spec)) {
					t.Errorf("%s %s rank %s on node slot %d of %d", tr, mode, r.Name, r.Node, len(NodeSlots(spec)))
				}
				names[r.Name], rx, tx = true, rx || r.Receives, tx || r.Sends
			}
			if !rx || !tx {
				t.Errorf("%s: a kind needs a receiver and a sender: %+v", tr, ranks)
			}
		}
	}
}

func TestTodaysKindsKeepTheirShape(t *testing.T) {
	cross := &sbv1.SpiralBenchSpec{Topology: sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode}}
	for _, tr := range []sbv1.Transport{sbv1.TransportTCP, sbv1.TransportUDP, sbv1.TransportRoCE} {
		cross.Transport = tr
		r, _ := Ranks(cross)
		if len(r) != 2 || r[0].Name != RoleServer || !r[0].Receives || r[1].Name != RoleClient || !r[1].Sends || r[1].Node != 1 {
			t.Errorf("%s: server (receiver) then client (sender) on the second node: %+v", tr, r)
		}
	}
	r, _ := Ranks(&sbv1.SpiralBenchSpec{Transport: sbv1.TransportRawEthernet})
	if len(r) != 1 || r[0].Name != RoleLoopback || len(r[0].Sides) != 2 || !r[0].Receives || !r[0].Sends {
		t.Errorf("raw: one loopback rank with both sides: %+v", r)
	}
	for tr, want := range map[sbv1.Transport][2]string{sbv1.TransportRawEthernet: {"raw", "dpdk"}, sbv1.TransportRoCE: {"roce", "rdma"},
		sbv1.TransportTCP: {"tcp", "socket-tcp"}, sbv1.TransportUDP: {"udp", "socket-udp"}} {
		k, _ := Lookup(tr)
		if k.DataplaneTransport != want[0] || k.Backend != want[1] {
			t.Errorf("%s: --transport %s backend %s, want %v", tr, k.DataplaneTransport, k.Backend, want)
		}
	}
}

func TestRegisterRefusesDuplicatesAndIncompleteProfiles(t *testing.T) {
	for name, p := range map[string]Profile{
		"duplicate":  {Transport: sbv1.TransportTCP, DataplaneTransport: "tcp", Backend: "tcp", Ranks: ServerClient},
		"no ranks":   {Transport: "NoRanks", DataplaneTransport: "x", Backend: "x"},
		"no backend": {Transport: "NoBackend", DataplaneTransport: "x", Ranks: Loopback},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register must panic", name)
				}
			}()
			Register(p)
		}()
	}
}

func TestParametersNameTheKindsOwnCoordinates(t *testing.T) {
	for _, c := range []struct {
		t    sbv1.Transport
		p    sbv1.CellParameters
		want string
	}{
		{sbv1.TransportRawEthernet, sbv1.CellParameters{PayloadBytes: 8000, Batch: 10240, Queues: sbv1.QueueCell{TX: 1, RX: 2}}, "8000 B batch 10240 (1,2)"},
		{sbv1.TransportTCP, sbv1.CellParameters{PayloadBytes: 1 << 20, Pairs: 4}, "1 MiB x 4 pairs"},
		{sbv1.TransportUDP, sbv1.CellParameters{PayloadBytes: 8000, Pairs: 2, TargetRateMbps: 5000, Workload: sbv1.WorkloadFFT, WorkloadBatchBytes: 64 << 10}, "8000 B x 2 pairs @ 5 Gb/s fft/64 KiB"},
		{sbv1.TransportRoCE, sbv1.CellParameters{PayloadBytes: 8 << 20, Pairs: 1}, "8 MiB"},
		{sbv1.TransportRoCE, sbv1.CellParameters{PayloadBytes: 8_000_000, Pairs: 1}, "8 MB"},
	} {
		if got := Parameters(c.t, c.p); got != c.want {
			t.Errorf("%s: %q, want %q", c.t, got, c.want)
		}
	}
}

// A kind's OneNode message is admission's only word on where it runs: it must be set exactly
// when the kind's ranks all sit on the first node even with topology.mode CrossNode.
func TestOneNodeAdmissionFollowsTheRanks(t *testing.T) {
	for _, tr := range Transports() {
		k, _ := Lookup(tr)
		spec := &sbv1.SpiralBenchSpec{Transport: tr, Topology: sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode}}
		oneNode := true
		for _, r := range k.Ranks(spec) {
			oneNode = oneNode && r.Node == 0
		}
		if oneNode != (k.Admission.OneNode != "") {
			t.Errorf("%s: ranks on one node %t, Admission.OneNode %q", tr, oneNode, k.Admission.OneNode)
		}
	}
}
