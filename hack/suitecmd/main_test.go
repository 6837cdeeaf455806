package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// render prints a built-in suite's commands and returns them by "step/cell.first/rank".
func render(t *testing.T, suite sbv1.SuiteName, gpus int32) map[string]string {
	t.Helper()
	var err error
	if schema, err = loadSchema("../../config/crd/bases/spiralbench.io_spiralbenches.yaml"); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	stdout := os.Stdout
	os.Stdout = w
	for _, step := range fleet.Steps(&sbv1.SpiralBenchFleetSpec{Suite: &sbv1.SuiteSpec{Builtin: suite}}) {
		if err := printStep(step, gpus); err != nil {
			os.Stdout = stdout
			t.Fatal(err)
		}
	}
	_ = w.Close()
	os.Stdout = stdout
	var out bytes.Buffer
	_, _ = io.Copy(&out, r)
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.SplitN(l, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("not STEP CELL RANK ARGS: %q", l)
		}
		lines[f[0]+"/"+f[1]+"/"+f[2]] = f[3]
	}
	return lines
}

// The Quick suite renders as its pods run it: the CRD's defaults applied (a GPUCopy step
// names no run.seconds, the apiserver gives it 30), all GPUs on the steps that use them, and a
// TCP step's client meeting its server.
func TestQuickSuiteRendersWithTheAPIDefaults(t *testing.T) {
	lines := render(t, "Quick", 4)
	if a := lines["copy/0.0/0"]; !strings.Contains(a, "--transport gpucopy --seconds 30 ") {
		t.Errorf("the copy step with the CRD's default run.seconds: %s", a)
	}
	if a := lines["nccl/0.0/0"]; !strings.Contains(a, "--gpus 4 ") {
		t.Errorf("the nccl step on all 4 GPUs: %s", a)
	}
	if a := lines["tcp/0.0/1"]; !strings.HasPrefix(a, "client ") || !strings.Contains(a, "127.0.0.1") || !strings.Contains(a, "--seconds 5 ") {
		t.Errorf("the tcp step's client meets its server with the step's own seconds: %s", a)
	}
}

// Repeats run as the bench controller starts them: a kind that runs one repeat per process
// (GPUCopy, NCCL) gets an attempt per repeat; sockets run their three in one pair of processes.
func TestStandardSuiteRendersAnAttemptPerRepeatWhereTheKindNeedsIt(t *testing.T) {
	lines := render(t, "Standard", 2)
	for _, key := range []string{"copy/0.0/0", "copy/0.1/0", "copy/0.2/0", "nccl/0.2/0"} {
		if a, ok := lines[key]; !ok || strings.Contains(a, "--repeats") {
			t.Errorf("%s: one repeat per process: %q", key, a)
		}
	}
	if a := lines["tcp/0.0/0"]; !strings.Contains(a, "--repeats 3 ") {
		t.Errorf("tcp runs its 3 repeats in one process: %s", a)
	}
	if _, ok := lines["tcp/0.1/0"]; ok {
		t.Errorf("no second tcp attempt")
	}
}
