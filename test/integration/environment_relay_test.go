package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/summary"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// hostCapture is what a data plane captures of a 100 GbE host, as the relay carries it.
func hostCapture(cpu string) summary.EnvMessage {
	return summary.EnvMessage{Env: &summary.Env{DataplaneVersion: "0.1.0", DataplaneRevision: "abc123", CPUModel: cpu,
		KernelCmdline: "BOOT_IMAGE=/vmlinuz iommu=pt", CPUsOnline: 72,
		NICs: []summary.EnvNIC{{Netdev: "eth1", Driver: "mlx5_core", DriverVersion: "24.10", Firmware: "28.39.1002",
			PCIAddress: "0000:01:00.0", SpeedMbps: 100000, MTU: 9000, SpeedMaxMbps: 100000, PCIeWidth: 16, PCIeGen: 5}}},
		Truncated: "kept 4 of 16 GPUs, 1 of 1 NICs to fit 4096 bytes"}
}

func terminatedStatus(name, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		Message: message, FinishedAt: metav1.Now()}}}
}

// Grouped repeats leave the summary no room for the environment (the stand-in's summaries carry
// none); the relay container's own termination message brings it to status, and with it the
// NIC facts sbctl explain and the report read.
func TestGroupedRepeatsCarryTheEnvironmentThroughTheRelay(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "env-relay-node")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("relay", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 3, 0).Obj(), "env-relay-node")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	relays := 0
	k := &kubeletStandIn{t: t, ns: ns, bench: "relay", statuses: func(p *corev1.Pod) []corev1.ContainerStatus {
		if len(p.Spec.Containers) < 2 || p.Spec.Containers[1].Name != cellpod.EnvironmentContainer {
			return nil
		}
		relays++
		return []corev1.ContainerStatus{terminatedStatus(cellpod.EnvironmentContainer, summary.EncodeEnvMessage(hostCapture("Neoverse-V2")))}
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	if c := sb.Status.CellResults[0]; c.Attempts != 1 || len(c.RepeatResults) != 3 || argOf(k.clientArgs, "--repeats") != "3" {
		t.Fatalf("want three repeats grouped in one attempt: %+v, client args %v", c, k.clientArgs)
	}
	if relays != 1 {
		t.Errorf("%d server pods ran a relay, want the one attempt's", relays)
	}
	env := sb.Status.Environment
	if env == nil || env.CPUModel != "Neoverse-V2" || env.DataplaneRevision != "abc123" || env.Node != "env-relay-node" ||
		len(env.NICs) != 1 || env.NICs[0].SpeedMbps != 100000 || env.NICs[0].MTU != 9000 || env.NICDriver != "mlx5_core 24.10" {
		t.Fatalf("environment %+v", env)
	}
	if !strings.Contains(env.CaptureNote, "kept 4 of 16 GPUs") {
		t.Errorf("what the data plane cut is not said: %q", env.CaptureNote)
	}
	if got := explain.Cell(sb, &sb.Status.CellResults[0]).Short(); strings.Contains(got, "unknown") || !strings.Contains(got, "Ethernet") {
		t.Errorf("bound by %q, want the 100 GbE NIC's ceiling", got)
	}
	page, err := htmlreport.Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Neoverse-V2", "mlx5_core 24.10", "kept 4 of 16 GPUs"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// An environment written anywhere but the relay of the operator's own marked rank 0 pod never
// reaches status: a container status the pod's spec has no container for, a relay-named status
// on the client, a pod a namespace editor created (the built-in edit role).
func TestAnEnvironmentFromAnywhereElseIsIgnored(t *testing.T) {
	requireRBAC(t)
	ns := newNamespace(t)
	bindEditor(t, ns, "alice")
	testNode(t, "env-forged-node")
	forged := summary.EncodeEnvMessage(hostCapture("FORGED"))
	editors := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "forged-editor-server", Namespace: ns,
			Labels: map[string]string{cellpod.LabelBench: "forged", cellpod.LabelCell: "0", cellpod.LabelRole: cellpod.RoleServer}},
		Spec: corev1.PodSpec{NodeName: "env-forged-node", Containers: []corev1.Container{
			{Name: cellpod.DataplaneContainer, Image: "spiralbench/dataplane:test"},
			{Name: cellpod.EnvironmentContainer, Image: "spiralbench/dataplane:test"}}},
	}
	if err := clientAs(t, "alice").Create(context.Background(), editors); err != nil {
		t.Fatalf("alice, an editor of the namespace, creates a pod like a bench's server: %v", err)
	}
	editors.Status.Phase = corev1.PodSucceeded
	editors.Status.ContainerStatuses = []corev1.ContainerStatus{terminatedStatus(cellpod.EnvironmentContainer, forged)}
	if err := k8sClient.Status().Update(context.Background(), editors); err != nil {
		t.Fatal(err)
	}
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("forged", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 3, 0).Obj(), "env-forged-node")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "forged", statuses: func(p *corev1.Pod) []corev1.ContainerStatus {
		if p.Name == editors.Name {
			return nil
		}
		if p.Labels[cellpod.LabelRole] == cellpod.RoleClient {
			return []corev1.ContainerStatus{terminatedStatus(cellpod.EnvironmentContainer, forged)}
		}
		return []corev1.ContainerStatus{terminatedStatus("sidecar", forged)} // the server's relay writes nothing
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	if env := sb.Status.Environment; env == nil || env.CPUModel != "" || len(env.NICs) != 0 || env.DataplaneRevision != "" {
		t.Fatalf("a forged environment reached status: %+v", env)
	}
}
