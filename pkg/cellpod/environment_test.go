package cellpod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Rank 0 gets the relay, and the data plane the file it reads, only while the bench still needs
// its environment; the client never does.
func TestRelayRunsBesideRankZeroUntilTheEnvironmentIsRecorded(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
	in := input(sb)
	server := build(in, RoleServer, "")
	if len(server.Spec.Containers) != 2 || server.Spec.Containers[0].Name != DataplaneContainer {
		t.Fatalf("containers: %+v", server.Spec.Containers)
	}
	relay := server.Spec.Containers[1]
	file, _ := argValue(server.Spec.Containers[0].Args, "--environment-file")
	if relay.Name != EnvironmentContainer || relay.Image != server.Spec.Containers[0].Image ||
		len(relay.Args) != 3 || relay.Args[0] != "relay-environment" || relay.Args[1] != file || file == "" {
		t.Fatalf("relay %+v reads %q", relay, file)
	}
	if relay.SecurityContext.Capabilities.Drop[0] != "ALL" || relay.Resources.Limits != nil {
		t.Errorf("the relay asks for nothing: %+v", relay)
	}
	if client := build(in, RoleClient, "10.0.0.1"); len(client.Spec.Containers) != 1 {
		t.Errorf("client has %d containers", len(client.Spec.Containers))
	}
	sb.Status.Environment = &sbv1.Environment{EnvironmentDetail: sbv1.EnvironmentDetail{DataplaneRevision: "abc"}}
	later := build(in, RoleServer, "")
	if _, ok := argValue(later.Spec.Containers[0].Args, "--environment-file"); ok || len(later.Spec.Containers) != 1 {
		t.Errorf("recorded environment, still relayed: %+v", later.Spec.Containers)
	}
}

// Only the relay of the pod's own spec is read: an ephemeral or injected container of the same
// name, or a status without its container, carries nothing.
func TestRelayMessageOnlyFromTheSpecsRelay(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
	pod := build(input(sb), RoleServer, "")
	ended := func(name, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Message: msg}}}
	}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{ended(DataplaneContainer, "summary"), ended("sidecar", "forged")}
	pod.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{ended(EnvironmentContainer, "forged")}
	if m := RelayMessage(pod); m != "" {
		t.Fatalf("read %q from a container that is not the relay", m)
	}
	pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, ended(EnvironmentContainer, "relayed"))
	if m := RelayMessage(pod); m != "relayed" {
		t.Fatalf("relay's message: %q", m)
	}
	pod.Spec.Containers = pod.Spec.Containers[:1] // a pod built without the relay
	if m := RelayMessage(pod); m != "" {
		t.Fatalf("read %q from a status whose container is not in the spec", m)
	}
}
