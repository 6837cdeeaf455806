package cellpod

import (
	"slices"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestOnThePodNetworkRankZeroAnnouncesItselfAndItsPeersWaitForIt(t *testing.T) {
	in := input(sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj())
	in.Rendezvous = "10.0.0.9:9445"
	if !in.ViaRendezvous() {
		t.Fatal("a pod-network TCP bench does not use the rendezvous")
	}
	server := build(in, RoleServer, "").Spec.Containers[0]
	for flag, want := range map[string]string{"--rendezvous": "10.0.0.9:9445", "--rendezvous-key": "$(SPIRAL_POD_UID)", "--announce-address": "$(SPIRAL_POD_IP)"} {
		if got, _ := argValue(server.Args, flag); got != want {
			t.Errorf("server %s = %q, want %q (args %v)", flag, got, want, server.Args)
		}
	}
	env := map[string]string{}
	for _, e := range server.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			env[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	if env["SPIRAL_POD_IP"] != "status.podIP" || env["SPIRAL_POD_UID"] != "metadata.uid" {
		t.Errorf("server env %v: the kubelet must give it its pod IP and UID", env)
	}

	in.PeersFirst, in.RendezvousKey = true, "0b8c8f5e-3f0a-4c57-9d2e-7a1f2b3c4d5e"
	client := build(in, RoleClient, "").Spec.Containers[0]
	if got, _ := argValue(client.Args, "--rendezvous-key"); got != in.RendezvousKey {
		t.Errorf("client waits on %q, want rank 0's UID (args %v)", got, client.Args)
	}
	if got, _ := argValue(client.Args, "--rendezvous"); got != "10.0.0.9:9445" {
		t.Errorf("client --rendezvous %q", got)
	}
	if slices.Contains(client.Args, "--server-address") || slices.Contains(client.Args, "--announce-address") {
		t.Errorf("client args %v: no server address of its own, nothing to announce", client.Args)
	}
	if got, _ := argValue(client.Args, "--connect-timeout-ms"); got != "92000" {
		t.Errorf("client connect timeout %s ms, want the attempt's deadline (92000)", got)
	}
	for _, e := range client.Env {
		if e.Name == "SPIRAL_POD_IP" {
			t.Error("the client announces nothing, yet gets its pod IP")
		}
	}
}

func TestAnAddressKnownInAdvanceNeedsNoRendezvous(t *testing.T) {
	for name, edit := range map[string]func(*sbv1.SpiralBench){
		"fixed address": func(sb *sbv1.SpiralBench) { sb.Spec.Topology.Server.Address = "192.168.7.2" },
		"host network":  func(sb *sbv1.SpiralBench) { sb.Spec.Topology.Server.HostNetwork = true },
		"secondary network": func(sb *sbv1.SpiralBench) {
			sb.Spec.Topology.Server.Networks = []sbv1.NetworkAttachment{{Name: "cx7-a"}}
		},
	} {
		sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
		edit(sb)
		in := input(sb)
		in.Rendezvous = "10.0.0.9:9445"
		if in.ViaRendezvous() {
			t.Errorf("%s: uses the rendezvous", name)
		}
		if args := build(in, RoleServer, "").Spec.Containers[0].Args; slices.Contains(args, "--rendezvous") {
			t.Errorf("%s: server args %v announce", name, args)
		}
	}
	in := input(sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj())
	if in.ViaRendezvous() {
		t.Error("a manager without a rendezvous: a bench uses one")
	}
}
