package benchkind

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// flagValue returns the value after flag in a, or "" when absent.
func flagValue(a []string, flag string) string {
	for i := 0; i+1 < len(a); i++ {
		if a[i] == flag {
			return a[i+1]
		}
	}
	return ""
}

// Seed 003: all_gather between two Sparks, one GPU each, over the second RoCE port's netdev.
func TestNCCLCrossNodeIsOnePodPerNodeWithItsRanks(t *testing.T) {
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL,
		NCCL: &sbv1.NCCLSpec{Operation: sbv1.NCCLAllGather, MinBytes: 8, MaxBytes: 128 * MiB, StepFactor: 2, Network: sbv1.NCCLNetworkRDMA},
		Topology: sbv1.TopologySpec{Mode: sbv1.TopologyCrossNode,
			Server: sbv1.SideSpec{GPUs: 1, Networks: []sbv1.NetworkAttachment{{Name: "roce-p1", Interface: "net1"}}},
			Client: sbv1.SideSpec{GPUs: 1, Networks: []sbv1.NetworkAttachment{{Name: "roce-p1", Interface: "net1"}}}}}
	ranks, err := Ranks(spec)
	if err != nil || len(ranks) != 2 || ranks[0].Node != 0 || ranks[1].Node != 1 || ranks[1].Sides[0] != SideClient {
		t.Fatalf("ranks = %+v, %v", ranks, err)
	}
	p, _ := Lookup(sbv1.TransportNCCL)
	r0, r1 := p.Flags(spec, p.Headline, ranks[0]), p.Flags(spec, p.Headline, ranks[1])
	for flag, want := range map[string]string{"--op": "all_gather", "--min-bytes": "8", "--max-bytes": "134217728",
		"--step-factor": "2", "--nranks": "2", "--gpus": "1", "--first-rank": "0", "--network": "rdma", "--socket-ifname": "net1"} {
		if got := flagValue(r0, flag); got != want {
			t.Errorf("rank0 %s = %q, want %q (%v)", flag, got, want, r0)
		}
	}
	if flagValue(r1, "--first-rank") != "1" {
		t.Errorf("the second pod's first NCCL rank follows the first pod's GPUs: %v", r1)
	}
}

func TestNCCLOnOneNodeIsOnePodHoldingEveryGPU(t *testing.T) {
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL,
		NCCL:     &sbv1.NCCLSpec{Operation: sbv1.NCCLReduce, ReduceOp: "Max", Root: 3, DataType: "BFloat16", IBHCAs: []string{"mlx5_0", "mlx5_1"}},
		Topology: sbv1.TopologySpec{Mode: sbv1.TopologyLoopback, Server: sbv1.SideSpec{GPUs: 8}}}
	ranks, _ := Ranks(spec)
	if len(ranks) != 1 || ranks[0].Role != RoleRank {
		t.Fatalf("ranks = %+v", ranks)
	}
	p, _ := Lookup(sbv1.TransportNCCL)
	a := p.Flags(spec, p.Headline, ranks[0])
	if flagValue(a, "--gpus") != "8" || flagValue(a, "--nranks") != "8" || flagValue(a, "--reduce-op") != "max" ||
		flagValue(a, "--root") != "3" || flagValue(a, "--data-type") != "bfloat16" || flagValue(a, "--ib-hcas") != "mlx5_0,mlx5_1" {
		t.Errorf("flags = %v", a)
	}
	if flagValue(a, "--socket-ifname") != "" {
		t.Errorf("no secondary network, no socket interface: %v", a)
	}
}

func TestNCCLDefaultsAreNcclTestsDefaults(t *testing.T) {
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL, Topology: sbv1.TopologySpec{Server: sbv1.SideSpec{GPUs: 2}}}
	p, _ := Lookup(sbv1.TransportNCCL)
	ranks, _ := Ranks(spec)
	a := strings.Join(p.Flags(spec, p.Headline, ranks[0]), " ")
	for _, want := range []string{"--op all_reduce", "--data-type float", "--reduce-op sum", "--placement both", "--network auto"} {
		if !strings.Contains(a, want) {
			t.Errorf("%q missing from %s", want, a)
		}
	}
}

func TestNCCLTests219OptionsBecomeFlagsOnlyWhenSet(t *testing.T) {
	p, _ := Lookup(sbv1.TransportNCCL)
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL, Topology: sbv1.TopologySpec{Server: sbv1.SideSpec{GPUs: 1}},
		NCCL: &sbv1.NCCLSpec{Blocking: "None", Registration: "None"}}
	ranks, _ := Ranks(spec)
	a := p.Flags(spec, p.Headline, ranks[0])
	for _, f := range []string{"--timeout-s", "--unalign", "--blocking", "--registration", "--split"} {
		if flagValue(a, f) != "" {
			t.Errorf("%s passed at its default: %v", f, a)
		}
	}
	spec.NCCL = &sbv1.NCCLSpec{TimeoutSeconds: 60, UnalignElements: 3, Blocking: "WaitUntimedBarrier", Registration: "Symmetric", Split: "MOD 8"}
	a = p.Flags(spec, p.Headline, ranks[0])
	if flagValue(a, "--split") != "MOD 8" || flagValue(a, "--timeout-s") != "60" || flagValue(a, "--unalign") != "3" ||
		flagValue(a, "--blocking") != "wait_untimed_barrier" || flagValue(a, "--registration") != "symmetric" {
		t.Errorf("flags = %v", a)
	}
	for blocking, want := range map[sbv1.NCCLBlocking]string{"WaitAndBarrier": "wait_barrier", "Wait": "wait"} {
		spec.NCCL = &sbv1.NCCLSpec{Blocking: blocking, Registration: "Local"}
		a = p.Flags(spec, p.Headline, ranks[0])
		if flagValue(a, "--blocking") != want || flagValue(a, "--registration") != "local" {
			t.Errorf("%s: flags = %v", blocking, a)
		}
	}
}

func TestNCCLAllToAllvTrafficBecomesFlags(t *testing.T) {
	p, _ := Lookup(sbv1.TransportNCCL)
	spread := int32(0)
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL, Topology: sbv1.TopologySpec{Server: sbv1.SideSpec{GPUs: 2}},
		NCCL: &sbv1.NCCLSpec{Operation: sbv1.NCCLAllToAllv, AllToAllv: &sbv1.NCCLAllToAllvSpec{SpreadPercent: &spread}}}
	ranks, _ := Ranks(spec)
	a := p.Flags(spec, p.Headline, ranks[0])
	if flagValue(a, "--op") != "alltoallv" || flagValue(a, "--alltoallv-spread-percent") != "0" || flagValue(a, "--alltoallv-matrix") != "" {
		t.Errorf("flags = %v", a)
	}
	spec.NCCL.AllToAllv = &sbv1.NCCLAllToAllvSpec{TrafficMatrix: [][]int64{{0, 1024}, {2048, 16}}}
	a = p.Flags(spec, p.Headline, ranks[0])
	if flagValue(a, "--alltoallv-matrix") != "0 1024;2048 16" || flagValue(a, "--alltoallv-spread-percent") != "" {
		t.Errorf("flags = %v", a)
	}
	if sbv1.NCCLAllToAllv.DefinesInPlace() {
		t.Error("alltoallv has no in-place form")
	}
}

func TestGPUCopyFlags(t *testing.T) {
	spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportGPUCopy,
		GPUCopy: &sbv1.GPUCopySpec{Directions: []sbv1.CopyDirection{"H2D"}, HostMemory: []sbv1.CopyHostMemory{"Pinned"}, MinBytes: 8 * MiB, MaxBytes: 1 << 30, StepFactor: 2}}
	p, _ := Lookup(sbv1.TransportGPUCopy)
	ranks, _ := Ranks(spec)
	a := p.Flags(spec, p.Headline, ranks[0])
	if flagValue(a, "--directions") != "h2d" || flagValue(a, "--host-memory") != "pinned" || flagValue(a, "--max-bytes") != "1073741824" {
		t.Errorf("flags = %v", a)
	}
}
