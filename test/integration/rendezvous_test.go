package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// rendezvousAsk sends one request to the manager's rendezvous from the local address from,
// as the data plane does (dataplane/src/control/rendezvous.cpp), and returns the reply.
func rendezvousAsk(t *testing.T, from string, request map[string]string) map[string]string {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", rendezvousServer.Advertise)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	b, _ := json.Marshal(request)
	if _, err := c.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("rendezvous %v: %v", request, err)
	}
	var reply map[string]string
	if err := json.Unmarshal(line, &reply); err != nil {
		t.Fatal(err)
	}
	return reply
}

// pendingPod waits for a pod of the bench's first attempt and returns it as the apiserver has it.
func pendingPod(t *testing.T, ns, bench, role string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{}
	eventually(t, 20*time.Second, role+" pod", func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: cellpod.Name(bench, 0, 0, role)}, p)
		return err == nil, "not created"
	})
	return p
}

// startTCPBench creates a one-cell TCP bench on the pod network, on a node of its own, and
// returns its namespace.
func startTCPBench(t *testing.T, name string) string {
	t.Helper()
	ns := newNamespace(t)
	testNode(t, name+"-node")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench(name, ns).Transport(sbv1.TransportTCP).Payloads(8000), 1, 0).Obj(), name+"-node")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	return ns
}

// On the pod network the client starts beside the server, before any kubelet reports the
// server running, and learns the server's address from what the server announced.
func TestTheClientStartsBesideTheServerAndLearnsItsAddressFromIt(t *testing.T) {
	requireEnv(t)
	ns := startTCPBench(t, "rdv")
	server := pendingPod(t, ns, "rdv", cellpod.RoleServer)
	if got := argOf(server.Spec.Containers[0].Args, "--announce-address"); got != "$(SPIRAL_POD_IP)" {
		t.Fatalf("server args %v: it must announce its pod IP", server.Spec.Containers[0].Args)
	}
	// No kubelet has touched the server, yet its client is there, waiting on the server's UID.
	client := pendingPod(t, ns, "rdv", cellpod.RoleClient)
	if isRunning(server) {
		t.Fatal("the server runs already")
	}
	if got := argOf(client.Spec.Containers[0].Args, "--rendezvous-key"); got != string(server.UID) {
		t.Fatalf("client waits on %q, want the server's UID %s", got, server.UID)
	}
	waited := make(chan map[string]string, 1)
	go func() {
		waited <- rendezvousAsk(t, "127.0.0.1", map[string]string{"type": "wait", "key": string(server.UID)})
	}()
	if r := rendezvousAsk(t, "127.0.0.1", map[string]string{"type": "announce", "key": string(server.UID), "address": "127.0.0.1"}); r["type"] != "announced" {
		t.Fatalf("announce: %v", r)
	}
	if r := <-waited; r["type"] != "address" || r["address"] != "127.0.0.1" {
		t.Fatalf("the waiting client got %v, want address 127.0.0.1", r)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "rdv", podIP: "127.0.0.1"}
	done := k.runUntil(30*time.Second, sbv1.PhaseCompleted)
	if c := meta.FindStatusCondition(done.Status.Conditions, sbv1.ConditionPassed); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Passed: %+v; cells %+v", c, done.Status.CellResults)
	}
}

// A pod that announces itself first as the server (anyone who can read the bench's pods knows
// the server's UID) sends the client elsewhere: the kubelet's pod IP unmasks it and the attempt
// is not judged on what the client measured.
func TestAnAnnouncementFromAnotherPodFailsTheAttempt(t *testing.T) {
	requireEnv(t)
	ns := startTCPBench(t, "rdv-forged")
	server := pendingPod(t, ns, "rdv-forged", cellpod.RoleServer)
	if r := rendezvousAsk(t, "127.0.0.2", map[string]string{"type": "announce", "key": string(server.UID), "address": "127.0.0.2"}); r["type"] != "announced" {
		t.Fatalf("forged announce: %v", r)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "rdv-forged"} // the server runs at 10.244.0.7
	done := k.runUntil(30*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)
	if c := meta.FindStatusCondition(done.Status.Conditions, sbv1.ConditionPassed); c != nil && c.Status == metav1.ConditionTrue {
		t.Errorf("Passed with the client sent to another pod: %+v", c)
	}
	cell := done.Status.CellResults[0]
	if cell.State != sbv1.CellFailed || !strings.Contains(cell.Message, "announced to the rendezvous as 127.0.0.2") ||
		!strings.Contains(cell.Message, "kubelet reports its pod at 10.244.0.7") {
		t.Errorf("cell %s: %q, want Failed naming both addresses", cell.State, cell.Message)
	}
}

// Repeats measured through the rendezvous are judged only once the kubelet has reported rank 0's
// IP, against which the address the client got is checked: without it they are not.
func TestMeasuredRepeatsWithoutRankZerosIPAreNotJudged(t *testing.T) {
	requireEnv(t)
	ns := startTCPBench(t, "rdv-noip")
	k := &kubeletStandIn{t: t, ns: ns, bench: "rdv-noip", podIP: "none"}
	done := k.runUntil(30*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)
	cell := done.Status.CellResults[0]
	if cell.State != sbv1.CellFailed || !strings.Contains(cell.Message, "no IP in its status") || len(cell.RepeatResults) != 0 {
		t.Errorf("cell %s with %d repeats: %q, want Failed, nothing measured, saying why", cell.State, len(cell.RepeatResults), cell.Message)
	}
}
