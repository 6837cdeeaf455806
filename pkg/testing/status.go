package testing

import (
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Status builders: what the kubelet and the data plane would have written, so controller tests
// can move pods and benches through their states without a node.
//
//	sbtesting.WrapPod(pod).Ready("10.0.0.5").Obj()
//	sbtesting.WrapPod(pod).Succeeded(sbtesting.MakeSummary("server").RXMbps(9000).JSON()).Obj()

// UID sets the bench's UID (what the apiserver would assign; leases name their holder by it).
func (w *SpiralBenchWrapper) UID(uid string) *SpiralBenchWrapper {
	w.SpiralBench.UID = types.UID(uid)
	return w
}

// CrossNode puts the server and the client on nodes of their own.
func (w *SpiralBenchWrapper) CrossNode(server, client string) *SpiralBenchWrapper {
	w.Spec.Topology.Mode = sbv1.TopologyCrossNode
	w.Spec.Topology.Placement = nil
	w.Spec.Topology.Server.Placement = &sbv1.Placement{NodeName: server}
	w.Spec.Topology.Client.Placement = &sbv1.Placement{NodeName: client}
	return w
}

// LeasedNodes records the nodes the bench holds, as status.nodes.
func (w *SpiralBenchWrapper) LeasedNodes(nodes ...string) *SpiralBenchWrapper {
	w.Status.Nodes = nodes
	return w
}

// Active records a running attempt of a cell that started at start.
func (w *SpiralBenchWrapper) Active(cell, repeat, attempt int32, start time.Time) *SpiralBenchWrapper {
	w.Status.Phase = sbv1.PhaseRunning
	w.Status.ActiveAttempt = &sbv1.ActiveAttempt{CellIndex: cell, Repeat: repeat, Attempt: attempt, StartTime: metav1.NewTime(start)}
	return w
}

// PodWrapper sets a pod's status.
type PodWrapper struct{ corev1.Pod }

// WrapPod starts from a copy of a pod, typically one the controller created.
func WrapPod(p *corev1.Pod) *PodWrapper { return &PodWrapper{*p.DeepCopy()} }

// Obj returns the pod.
func (w *PodWrapper) Obj() *corev1.Pod { return &w.Pod }

// Creating puts the pod on a node with an IP while its container is still being created (the
// image pulled, the sandbox set up): Pending.
func (w *PodWrapper) Creating(ip string) *PodWrapper {
	w.Status.Phase = corev1.PodPending
	w.Status.PodIP = ip
	w.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	w.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "dataplane",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
	return w
}

// Running puts the pod on a node with an IP, not yet Ready.
func (w *PodWrapper) Running(ip string) *PodWrapper {
	w.Status.Phase = corev1.PodRunning
	w.Status.PodIP = ip
	w.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	w.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "dataplane",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}
	return w
}

// Ready is Running with the readiness probe passing (the data plane wrote its ready file).
func (w *PodWrapper) Ready(ip string) *PodWrapper {
	w.Running(ip)
	w.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	return w
}

// Succeeded ends the pod with exit code 0 and a termination message.
func (w *PodWrapper) Succeeded(message string) *PodWrapper { return w.Exited(0, message) }

// Exited ends the pod's container with an exit code and termination message; the phase
// follows the exit code as the kubelet's does for restartPolicy Never.
func (w *PodWrapper) Exited(code int32, message string) *PodWrapper {
	w.Status.Phase = corev1.PodSucceeded
	if code != 0 {
		w.Status.Phase = corev1.PodFailed
	}
	started := w.CreationTimestamp.Time
	if started.IsZero() {
		started = time.Now()
	}
	w.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	w.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "dataplane", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Message: message, Reason: "Completed",
			StartedAt: metav1.NewTime(started.Add(time.Second)), FinishedAt: metav1.NewTime(started.Add(3 * time.Second))},
	}}}
	return w
}

// ContainerExited ends the pod's container with an exit code and termination message while the
// phase is still Running: what the kubelet reports at its relist, before it has stopped the
// pod's sandbox and set the terminal phase.
func (w *PodWrapper) ContainerExited(code int32, message string) *PodWrapper {
	phase := w.Status.Phase
	w.Exited(code, message)
	if phase == "" {
		phase = corev1.PodRunning
	}
	w.Status.Phase = phase
	return w
}

// SummaryWrapper builds the data plane's summary (docs/dataplane.md, "Outputs").
type SummaryWrapper struct{ summary.Summary }

// MakeSummary starts a Valid one-second summary of a role with no GPU measured, echoing the
// TCP headline cell (8000 B x 4 pairs, unpaced) as the data plane echoes its cell.
func MakeSummary(role string) *SummaryWrapper {
	return &SummaryWrapper{summary.Summary{V: 1, Transport: "tcp", Role: role, State: "Valid", SecondsMilli: 1000,
		PayloadBytes: 8000, Pairs: 4, DropsKind: "tcp-nstat-retrans+inerrs", GPUSMMPct: -1, GPUMemMPct: -1}}
}

// Echo sets the cell the summary says it measured.
func (w *SummaryWrapper) Echo(e summary.Echo) *SummaryWrapper {
	w.Transport, w.PayloadBytes, w.Pairs, w.TargetMbps = e.Transport, e.PayloadBytes, e.Pairs, e.TargetMbps
	return w
}

// RXMbps sets what the role received: Mb/s, and the bytes and 8000-byte packets of one second.
func (w *SummaryWrapper) RXMbps(mbps int64) *SummaryWrapper {
	w.Summary.RXMbps, w.RXBytes, w.RXPackets, w.PPS = mbps, mbps*125000, mbps*125000/8000, mbps*125000/8000
	return w
}

// TXMbps sets what the role sent, likewise.
func (w *SummaryWrapper) TXMbps(mbps int64) *SummaryWrapper {
	w.Summary.TXMbps, w.TXBytes, w.TXPackets = mbps, mbps*125000, mbps*125000/8000
	return w
}

// Drops sets the drops the role counted.
func (w *SummaryWrapper) Drops(n int64, kind string) *SummaryWrapper {
	w.Summary.Drops, w.DropsKind = n, kind
	return w
}

// Invalid marks the run measured but not valid, with a reason.
func (w *SummaryWrapper) Invalid(reason string) *SummaryWrapper {
	w.State, w.Reason = "Invalid", reason
	return w
}

// JSON is the termination message.
func (w *SummaryWrapper) JSON() string {
	b, err := json.Marshal(w.Summary)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Lines is the termination message of a pod that ran several repeats (spiral-dataplane
// --repeats): one summary a line, in repeat order.
func Lines(summaries ...*SummaryWrapper) string {
	lines := make([]string, len(summaries))
	for i, s := range summaries {
		lines[i] = s.JSON()
	}
	return strings.Join(lines, "\n")
}
