package cellpod

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Args renders a rank's cell as spiral-dataplane flags (docs/dataplane.md), visible in
// `kubectl describe pod`: the rank's role, the flags every kind shares, the kind's own flags
// (benchkind.Profile.Flags), the GPU workload, the rendezvous, then the cores of each side.
func Args(in Input, rank benchkind.Rank, rendezvous string) []string {
	sb, p := in.Bench, in.Cell.CellParameters
	run := sb.Spec.Run
	a := []string{rank.Role, "--transport", in.Kind.DataplaneTransport}
	if p.PayloadBytes > 0 { // kinds that sweep sizes in one cell (NCCL, GPUCopy) have none
		a = append(a, "--payload-bytes", itoa(p.PayloadBytes))
	}
	if in.Repeats > 1 {
		a = append(a, "--repeats", itoa(in.Repeats))
	}
	a = append(a,
		"--seconds", itoa(run.Seconds),
		"--warmup-seconds", itoa(ptr.Deref(run.WarmupSeconds, 0)),
		"--base-port", itoa(BasePort),
		"--summary-file", summaryPath,
		"--workload", p.Workload.DataplaneName(),
		"--label", "bench="+sb.Namespace+"/"+sb.Name,
		"--label", "cell="+itoa(in.Cell.Index),
		"--label", "repeat="+itoa(in.Repeat),
		"--label", "attempt="+itoa(in.Attempt),
	)
	if in.Kind.Flags != nil {
		a = append(a, in.Kind.Flags(&sb.Spec, p, rank)...)
	}
	a = append(a, workloadArgs(sb.Spec.Workload, p)...)
	if t := AggregateTargetMbps(sb.Spec.Matrix.TargetRateScope, p); t > 0 {
		a = append(a, "--target-mbps", itoa(t))
	}
	a = append(a, searchArgs(run.Search)...)
	a = append(a, rendezvousArgs(in, rank, rendezvous)...)
	for i, s := range rank.Sides {
		flag := "--rx-cores"
		if s == benchkind.SideClient {
			flag = "--tx-cores"
		}
		// One process has one master core: its primary side's.
		a = append(a, cores(s.Spec(&sb.Spec).Cores, flag, i == 0)...)
	}
	return a
}

// rendezvousArgs: rank 0 binds and accepts when it has peers, and writes the ready file its
// readiness probe reads; the other ranks connect to rank 0's address.
// With topology.links above 1, rendezvous lists rank 0's address on each link, comma-separated,
// and the other ranks spread their pairs over them (--server-addresses). Rank 0 captures its
// host's environment until one capture is recorded (--environment, NeedsEnvironment).
func rendezvousArgs(in Input, rank benchkind.Rank, rendezvous string) []string {
	if rank.Index > 0 {
		connectMs := "30000"
		if in.PeersFirst {
			connectMs = strconv.FormatInt(in.Deadline()*1000, 10)
		}
		if in.RendezvousKey != "" { // rank 0's address comes from the manager's rendezvous
			return []string{"--rendezvous", in.Rendezvous, "--rendezvous-key", in.RendezvousKey, "--connect-timeout-ms", connectMs}
		}
		addresses := strings.Split(rendezvous, ",")
		a := []string{"--server-address", addresses[0], "--connect-timeout-ms", connectMs}
		if len(addresses) > 1 {
			a = append(a, "--server-addresses", rendezvous)
		}
		return a
	}
	var env []string
	if NeedsEnvironment(in.Bench) {
		env = []string{"--environment", "--environment-file", environmentFile}
	}
	if in.ViaRendezvous() { // the kubelet expands $(VAR) from the container's env (pod.go)
		env = append(env, "--rendezvous", in.Rendezvous, "--rendezvous-key", "$("+envPodUID+")", "--announce-address", "$("+envPodIP+")")
	}
	if len(in.Ranks) <= 1 {
		return append([]string{"--ready-file", readyFile}, env...)
	}
	bind := rank.Sides[0].Spec(&in.Bench.Spec).Address
	if bind == "" {
		bind = "0.0.0.0"
	}
	deadlineMs := strconv.FormatInt(in.Deadline()*1000, 10)
	return append([]string{"--bind-address", bind, "--ready-file", readyFile, "--accept-timeout-ms", deadlineMs}, env...)
}

// NeedsEnvironment says whether rank 0 of the next attempt should capture its host's
// environment: until one capture is in status.environment (dataplaneRevision set), so once
// per run.
func NeedsEnvironment(sb *sbv1.SpiralBench) bool {
	return sb.Status.Environment == nil || sb.Status.Environment.DataplaneRevision == ""
}

// workloadArgs passes the GPU workload's settings; the kind itself is always passed.
func workloadArgs(w *sbv1.WorkloadSpec, p sbv1.CellParameters) []string {
	if w == nil || p.Workload == "" || p.Workload == sbv1.WorkloadNone {
		return nil
	}
	a := []string{"--sync-interval", itoa(w.SyncInterval), "--max-in-flight", itoa(w.MaxInFlight)}
	if w.GEMMN > 0 {
		a = append(a, "--gemm-n", itoa(w.GEMMN))
	}
	if w.FFTLength > 0 {
		a = append(a, "--fft-length", itoa(w.FFTLength))
	}
	if p.WorkloadBatchBytes > 0 {
		a = append(a, "--workload-batch-bytes", itoa(p.WorkloadBatchBytes))
	}
	return a
}

func cores(c *sbv1.CoreMap, pollerFlag string, withMaster bool) []string {
	if c == nil {
		return nil
	}
	var a []string
	if withMaster && c.Master != nil {
		a = append(a, "--master-core", itoa(*c.Master))
	}
	if len(c.Pollers) > 0 {
		list := make([]string, len(c.Pollers))
		for i, v := range c.Pollers {
			list[i] = itoa(v)
		}
		a = append(a, pollerFlag, strings.Join(list, ","))
	}
	return a
}

func itoa[T ~int32 | ~int](v T) string { return strconv.Itoa(int(v)) }

func pullPolicy(p corev1.PullPolicy) corev1.PullPolicy {
	if p == "" {
		return corev1.PullIfNotPresent
	}
	return p
}

// Echo is what every rank's summary must echo of its cell: what Args passed it.
func (in Input) Echo() summary.Echo {
	p := in.Cell.CellParameters
	return summary.Echo{Transport: in.Kind.DataplaneTransport, PayloadBytes: int64(p.PayloadBytes),
		Pairs: int64(in.Kind.Pairs(&in.Bench.Spec, p)), TargetMbps: int64(AggregateTargetMbps(in.Bench.Spec.Matrix.TargetRateScope, p))}
}

// AggregateTargetMbps is the data plane's --target-mbps, the rate of all pairs together: the
// cell's target times its pairs when the target is each pair's (PerPair, DAQIRI's and the
// default), the target itself when it is the total.
func AggregateTargetMbps(scope sbv1.TargetRateScope, p sbv1.CellParameters) int32 {
	if scope == sbv1.TargetRateTotal {
		return p.TargetRateMbps
	}
	return p.TargetRateMbps * max(p.Pairs, 1)
}
