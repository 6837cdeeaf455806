package main

import (
	"encoding/json"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The fixtures' environments have no NICs: each bench gets the facts its cells need.
func TestExplainPrintsCeilingsAndBounds(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	nic := fixture.TCPSweep("nic", 1, false)
	nic.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	create(t, ns, nic)
	veth := fixture.TCPSweep("veth", 1, false)
	veth.Spec.Topology.Server.Cores = &sbv1.CoreMap{Pollers: []int32{3}}
	veth.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth0", Driver: "veth", SpeedMbps: 10000, MTU: 1500}}
	// The busy shares are derived from the repeats (the bench does not store them): cell 0's
	// repeats measured its RX core busy.
	for i := range veth.Status.CellResults[0].RepeatResults {
		veth.Status.CellResults[0].RepeatResults[i].CPU = &sbv1.CPUBusy{MasterMilliPercent: 2000, TXMilliPercent: 60000, RXMilliPercent: 99000}
	}
	create(t, ns, veth)
	bare := fixture.TCPSweep("bare", 1, false)
	bare.Status.Environment = nil
	create(t, ns, bare)

	out, err := sbctl(t, ns, "explain", ns+"/nic")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"CELL  PARAMETERS", "FRACTION", "BOUND BY", "99.00 Gb/s", "100 Gb/s Ethernet of eth1 at 0.",
		"cells 0-8: 100 Gb/s Ethernet of eth1, 99.00 Gb/s: 100 Gb/s Ethernet, TCP segments of MTU 9000 (MSS 8948 B, 32 B TCP header): 9038 B on the wire"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	out, err = sbctl(t, ns, "explain", "veth")
	if err != nil || !strings.Contains(out, "RX core 3 busy 99 %") || !strings.Contains(out, "ceiling unknown: no wire (NIC eth0 is veth, loopback or a memory port)") {
		t.Errorf("veth: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "explain", "bare", "-o", "json")
	if err != nil {
		t.Fatal(err, out)
	}
	var got explained
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Cells) != 9 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if c := got.Cells[0]; c.Unknown != "no environment recorded" || c.Ceiling != nil || c.Fraction != nil || c.Measured == nil {
		t.Errorf("bare cell 0: %+v", c)
	}
	if _, err := sbctl(t, ns, "explain", "nic", "-o", "yaml"); err == nil {
		t.Error("explain -o yaml: no error")
	}
}
