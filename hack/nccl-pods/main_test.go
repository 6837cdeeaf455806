package main

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The two layouts the N-GPU script measures are the operator's own pods: one pod holding both
// GPUs, or one pod per GPU with the second pointed at rank 0.
func TestLayoutsAreTheOperatorsRankPods(t *testing.T) {
	one, err := render(bench(sbv1.NCCLAllReduce, "one-pod", 2, 1<<30, 20, 5))
	if err != nil || len(one) != 1 || one[0].GPUs != 2 {
		t.Fatalf("one-pod = %+v, %v", one, err)
	}
	a := strings.Join(one[0].Args, " ")
	for _, want := range []string{"rank --transport nccl", "--op all_reduce", "--max-bytes 1073741824", "--iterations 20",
		"--warmup-iterations 5", "--check-iterations 1", "--gpus 2 --first-rank 0 --nranks 2", "--summary-file /dev/termination-log"} {
		if !strings.Contains(a, want) {
			t.Errorf("one-pod args lack %q: %s", want, a)
		}
	}
	two, err := render(bench(sbv1.NCCLSendRecv, "two-pods", 2, 1<<30, 20, 5))
	if err != nil || len(two) != 2 || two[0].GPUs != 1 || two[1].GPUs != 1 {
		t.Fatalf("two-pods = %+v, %v", two, err)
	}
	r0, r1 := strings.Join(two[0].Args, " "), strings.Join(two[1].Args, " ")
	if !strings.Contains(r0, "--gpus 1 --first-rank 0 --nranks 2") || !strings.Contains(r0, "--bind-address 0.0.0.0") ||
		!strings.Contains(r0, "--ready-file /run/spiral/ready") {
		t.Errorf("rank 0: %s", r0)
	}
	if !strings.Contains(r1, "--gpus 1 --first-rank 1 --nranks 2") || !strings.Contains(r1, "--server-address 127.0.0.1") {
		t.Errorf("rank 1: %s", r1)
	}
}

// On four GPUs one pod holds all four, or two pods hold two each, the second's ranks from 2.
func TestFourGPUsSplitIntoTwoPodsOfTwo(t *testing.T) {
	one, err := render(bench(sbv1.NCCLAllGather, "one-pod", 4, 1<<30, 20, 5))
	if err != nil || len(one) != 1 || one[0].GPUs != 4 ||
		!strings.Contains(strings.Join(one[0].Args, " "), "--gpus 4 --first-rank 0 --nranks 4") {
		t.Fatalf("one-pod = %+v, %v", one, err)
	}
	two, err := render(bench(sbv1.NCCLAllGather, "two-pods", 4, 1<<30, 20, 5))
	if err != nil || len(two) != 2 || two[0].GPUs != 2 || two[1].GPUs != 2 {
		t.Fatalf("two-pods = %+v, %v", two, err)
	}
	if r1 := strings.Join(two[1].Args, " "); !strings.Contains(r1, "--gpus 2 --first-rank 2 --nranks 4") {
		t.Errorf("second pod: %s", r1)
	}
}
