package cellpod

import (
	"slices"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Two links: both pods attach both networks, the client spreads its pairs over the server's
// address on each (--server-addresses), the server binds every address.
func TestTwoLinksGiveEachPodBothNetworksAndTheClientBothAddresses(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Pairs(4).Obj()
	sb.Spec.Topology.Links = 2
	nets := []sbv1.NetworkAttachment{{Name: "cx7-p0", Interface: "net1"}, {Name: "cx7-p1", Interface: "net2"}}
	sb.Spec.Topology.Server.Networks, sb.Spec.Topology.Client.Networks = nets, nets
	sb.Spec.Topology.Client.Devices = []sbv1.DeviceResource{{ResourceName: "nvidia.com/cx7_vf", Count: 2}}
	in := input(sb)
	client := build(in, RoleClient, "10.56.1.2,10.56.2.2")
	args := client.Spec.Containers[0].Args
	if got, _ := argValue(args, "--server-addresses"); got != "10.56.1.2,10.56.2.2" {
		t.Errorf("--server-addresses %q in %v", got, args)
	}
	if got, _ := argValue(args, "--server-address"); got != "10.56.1.2" {
		t.Errorf("--server-address %q", got)
	}
	for _, role := range []string{RoleServer, RoleClient} {
		pod := build(in, role, "10.56.1.2,10.56.2.2")
		if a := pod.Annotations[MultusNetwork]; !strings.Contains(a, "cx7-p0") || !strings.Contains(a, "cx7-p1") {
			t.Errorf("%s networks %s", role, a)
		}
	}
	if q := client.Spec.Containers[0].Resources.Limits["nvidia.com/cx7_vf"]; q.Value() != 2 {
		t.Errorf("client devices %v", client.Spec.Containers[0].Resources.Limits)
	}
	server := build(in, RoleServer, "")
	if got, _ := argValue(server.Spec.Containers[0].Args, "--bind-address"); got != "0.0.0.0" {
		t.Errorf("server binds %q, want every address", got)
	}
	// One link: no --server-addresses.
	if one := build(input(sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()), RoleClient, "10.0.0.1"); slices.Contains(one.Spec.Containers[0].Args, "--server-addresses") {
		t.Error("one link needs no --server-addresses")
	}
}

// Rank 0 captures the environment until status.environment holds a capture.
func TestRankZeroCapturesTheEnvironmentOnce(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
	in := input(sb)
	if !slices.Contains(build(in, RoleServer, "").Spec.Containers[0].Args, "--environment") {
		t.Error("the first server must capture")
	}
	if slices.Contains(build(in, RoleClient, "10.0.0.1").Spec.Containers[0].Args, "--environment") {
		t.Error("only rank 0 captures")
	}
	sb.Status.Environment = &sbv1.Environment{Node: "spark-a"} // the node's labels only
	if !slices.Contains(build(in, RoleServer, "").Spec.Containers[0].Args, "--environment") {
		t.Error("labels alone are no capture")
	}
	sb.Status.Environment.DataplaneRevision = "d424416"
	if slices.Contains(build(in, RoleServer, "").Spec.Containers[0].Args, "--environment") {
		t.Error("captured once is enough")
	}
}
