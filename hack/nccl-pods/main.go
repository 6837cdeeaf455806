// Command nccl-pods writes the data plane command lines of the pods the operator plans for an
// NCCL bench on N GPUs of one host, so a device script runs exactly what the operator would ask
// for (hack/bench/nccl-ngpu-run.sh): pkg/plan's cell and pkg/cellpod's pods, not a copy of them.
//
//	go run ./hack/nccl-pods -out DIR -gpus 4 -max-bytes 1073741824 -iterations 20 -warmup-iterations 5
//
// For every operation and layout it writes DIR/<layout>-<op>-rank<i>.args (one argument per
// line; i is the pod's index), .gpus (the pod's nvidia.com/gpu) and .env (the container's
// KEY=VALUE, one a line). Layouts: one-pod (Loopback, server.gpus N: one pod, --gpus N) and
// two-pods (CrossNode, N/2 GPUs on each side: --first-rank 0 and --first-rank N/2, the second
// pointed at rank 0 on 127.0.0.1, the address both processes share on one machine).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// pod is one rank pod's command line and what the node gives it.
type pod struct {
	Args []string
	Env  []string
	GPUs int64
}

// bench is the SpiralBench a user would write for this measurement, with the values admission
// would default written out (the renderer never meets the apiserver).
func bench(op sbv1.NCCLOperation, layout string, gpus int32, maxBytes int64, iterations, warmup int32) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{Spec: sbv1.SpiralBenchSpec{
		Transport: sbv1.TransportNCCL,
		NCCL: &sbv1.NCCLSpec{Operation: op, MinBytes: 8, MaxBytes: maxBytes, StepFactor: 2, Iterations: iterations,
			WarmupIterations: warmup, CheckIterations: 1, DataType: "Float32", ReduceOp: "Sum", Placement: "Both",
			Network: sbv1.NCCLNetworkAuto, BootstrapTimeoutSeconds: 120},
		Run: sbv1.RunSpec{Seconds: 30, WarmupSeconds: ptr.To[int32](2), Repeats: 1, CellDeadlineSeconds: ptr.To[int32](600)},
	}}
	sb.Name, sb.Namespace = fmt.Sprintf("nccl-%dgpu", gpus), "bench"
	// a cell after the run's first: the host environment is captured once per run (--environment)
	sb.Status.Environment = &sbv1.Environment{EnvironmentDetail: sbv1.EnvironmentDetail{DataplaneRevision: "captured"}}
	if layout == "one-pod" {
		sb.Spec.Topology = sbv1.TopologySpec{Mode: sbv1.TopologyLoopback, Server: sbv1.SideSpec{GPUs: gpus}}
	} else {
		sb.Spec.Topology = sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode, Server: sbv1.SideSpec{GPUs: gpus / 2},
			Client: sbv1.SideSpec{GPUs: gpus - gpus/2}}
	}
	return sb
}

// render returns the rank pods of the bench's first cell, first attempt, in rank order.
func render(sb *sbv1.SpiralBench) ([]pod, error) {
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		return nil, err
	}
	in, err := cellpod.NewInput(sb, cells[0], 0, 1, 0, []string{"node-a", "node-b"})
	if err != nil {
		return nil, err
	}
	var pods []pod
	for i, rank := range in.Ranks {
		rendezvous := ""
		if i > 0 {
			rendezvous = "127.0.0.1"
		}
		c := cellpod.Build(in, rank, rendezvous).Spec.Containers[0]
		p := pod{Args: c.Args}
		for _, e := range c.Env {
			p.Env = append(p.Env, e.Name+"="+e.Value)
		}
		if q, ok := c.Resources.Limits["nvidia.com/gpu"]; ok {
			p.GPUs = q.Value()
		}
		pods = append(pods, p)
	}
	return pods, nil
}

func main() {
	out := flag.String("out", "nccl-pods", "folder for the .args, .gpus and .env files")
	maxBytes := flag.Int64("max-bytes", 1<<30, "nccl.maxBytes")
	iterations := flag.Int("iterations", 20, "nccl.iterations")
	warmup := flag.Int("warmup-iterations", 5, "nccl.warmupIterations")
	gpus := flag.Int("gpus", 2, "GPUs of the host: one pod holds them all, or two pods hold half each")
	flag.Parse()
	if *gpus < 2 {
		fail(fmt.Errorf("-gpus %d: two GPUs or more", *gpus))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	ops := []sbv1.NCCLOperation{sbv1.NCCLSendRecv, sbv1.NCCLAllGather, sbv1.NCCLAllReduce, sbv1.NCCLBroadcast,
		sbv1.NCCLReduce, sbv1.NCCLReduceScatter, sbv1.NCCLAllToAll}
	for _, layout := range []string{"one-pod", "two-pods"} {
		for _, op := range ops {
			pods, err := render(bench(op, layout, int32(*gpus), *maxBytes, int32(*iterations), int32(*warmup)))
			if err != nil {
				fail(err)
			}
			for i, p := range pods {
				base := filepath.Join(*out, fmt.Sprintf("%s-%s-rank%d", layout, op.DataplaneName(), i))
				write(base+".args", strings.Join(p.Args, "\n")+"\n")
				write(base+".gpus", fmt.Sprintf("%d\n", p.GPUs))
				write(base+".env", strings.Join(append(p.Env, ""), "\n"))
			}
		}
	}
}

func write(path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nccl-pods:", err)
	os.Exit(1)
}
