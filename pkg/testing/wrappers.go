// Package testing holds builders that keep tests short: MakeSpiralBench("x", "ns").
// Transport(sbv1.TransportTCP).Payloads(8000).Obj().
package testing

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// SpiralBenchWrapper builds a SpiralBench.
type SpiralBenchWrapper struct{ sbv1.SpiralBench }

// MakeSpiralBench starts a TCP bench with a short run, so tests stay fast unless they say otherwise.
func MakeSpiralBench(name, namespace string) *SpiralBenchWrapper {
	return &SpiralBenchWrapper{sbv1.SpiralBench{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       sbv1.SpiralBenchSpec{Transport: sbv1.TransportTCP},
	}}
}

// Obj returns the built object.
func (w *SpiralBenchWrapper) Obj() *sbv1.SpiralBench { return &w.SpiralBench }

func (w *SpiralBenchWrapper) Transport(t sbv1.Transport) *SpiralBenchWrapper {
	w.Spec.Transport = t
	return w
}

func (w *SpiralBenchWrapper) Preset(p sbv1.Preset) *SpiralBenchWrapper {
	w.Spec.Matrix.Preset = p
	return w
}

func (w *SpiralBenchWrapper) Payloads(p ...int32) *SpiralBenchWrapper {
	w.Spec.Matrix.PayloadBytes = p
	return w
}

func (w *SpiralBenchWrapper) Batches(b ...int32) *SpiralBenchWrapper {
	w.Spec.Matrix.Batches = b
	return w
}

func (w *SpiralBenchWrapper) Pairs(p ...int32) *SpiralBenchWrapper {
	w.Spec.Matrix.Pairs = p
	return w
}

func (w *SpiralBenchWrapper) Queues(q ...sbv1.QueueCell) *SpiralBenchWrapper {
	w.Spec.Matrix.Queues = q
	return w
}

func (w *SpiralBenchWrapper) TargetsMbps(t ...int32) *SpiralBenchWrapper {
	w.Spec.Matrix.TargetRatesMbps = t
	return w
}

func (w *SpiralBenchWrapper) MTU(m int32) *SpiralBenchWrapper {
	w.Spec.Topology.MTU = m
	return w
}

func (w *SpiralBenchWrapper) Mode(m sbv1.TopologyMode) *SpiralBenchWrapper {
	w.Spec.Topology.Mode = m
	return w
}

func (w *SpiralBenchWrapper) NodeName(n string) *SpiralBenchWrapper {
	w.Spec.Topology.Placement = &sbv1.Placement{NodeName: n}
	return w
}

func (w *SpiralBenchWrapper) Workload(k sbv1.WorkloadKind) *SpiralBenchWrapper {
	if w.Spec.Workload == nil {
		w.Spec.Workload = &sbv1.WorkloadSpec{}
	}
	w.Spec.Workload.Kind = k
	return w
}

func (w *SpiralBenchWrapper) ServerGPUs(n int32) *SpiralBenchWrapper {
	w.Spec.Topology.Server.GPUs = n
	return w
}

func (w *SpiralBenchWrapper) RoCE(r sbv1.RoCESpec) *SpiralBenchWrapper {
	w.Spec.RoCE = &r
	return w
}

// Socket sets spec.socket.
func (w *SpiralBenchWrapper) Socket(s sbv1.SocketSpec) *SpiralBenchWrapper {
	w.Spec.Socket = &s
	return w
}

func (w *SpiralBenchWrapper) Seconds(s int32) *SpiralBenchWrapper {
	w.Spec.Run.Seconds = s
	return w
}

func (w *SpiralBenchWrapper) Repeats(r int32) *SpiralBenchWrapper {
	w.Spec.Run.Repeats = r
	return w
}

func (w *SpiralBenchWrapper) Suspend(s bool) *SpiralBenchWrapper {
	w.Spec.Suspend = ptr.To(s)
	return w
}

func (w *SpiralBenchWrapper) Rule(r sbv1.AcceptanceRule) *SpiralBenchWrapper {
	if w.Spec.Acceptance == nil {
		w.Spec.Acceptance = &sbv1.AcceptanceSpec{}
	}
	w.Spec.Acceptance.Rules = append(w.Spec.Acceptance.Rules, r)
	return w
}

func (w *SpiralBenchWrapper) NCCL(n sbv1.NCCLSpec) *SpiralBenchWrapper {
	w.Spec.NCCL = &n
	return w
}

func (w *SpiralBenchWrapper) GPUCopy(c sbv1.GPUCopySpec) *SpiralBenchWrapper {
	w.Spec.GPUCopy = &c
	return w
}

func (w *SpiralBenchWrapper) ClientGPUs(n int32) *SpiralBenchWrapper {
	w.Spec.Topology.Client.GPUs = n
	return w
}

// Devices gives both sides the same device resources (RDMA devices, VFs).
func (w *SpiralBenchWrapper) Devices(d ...sbv1.DeviceResource) *SpiralBenchWrapper {
	w.Spec.Topology.Server.Devices = d
	w.Spec.Topology.Client.Devices = d
	return w
}
