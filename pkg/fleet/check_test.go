package fleet

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func endedCheck(phase corev1.PodPhase, exit int32, msg string) *corev1.Pod {
	p := CheckPod("c", "ns", "n1", &sbv1.ExternalCheck{Image: "img", GPUs: 1}, 60, nil)
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: CheckContainer,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: msg}}}}
	return p
}

func TestCheckOutcomeReadsExitCodeAndJSON(t *testing.T) {
	cases := []struct {
		pod    *corev1.Pod
		state  StepState
		reason string
		figure float64
	}{
		{endedCheck(corev1.PodSucceeded, 0, ""), StepPassedState, "", 0},
		{endedCheck(corev1.PodFailed, 3, ""), StepFailedState, "exit code 3", 0},
		{endedCheck(corev1.PodSucceeded, 0, `{"verdict":"Failed","reason":"BelowReference","figures":{"CopyH2DMBps":20000}}`), StepFailedState, "BelowReference", 20000},
		{endedCheck(corev1.PodFailed, 1, `{"verdict":"Passed","figures":{"CopyH2DMBps":55000}}`), StepPassedState, "", 55000},
		{endedCheck(corev1.PodSucceeded, 0, `{"verdict":"Invalid","reason":"no DCGM"}`), StepInvalidState, "no DCGM", 0},
		{endedCheck(corev1.PodSucceeded, 0, `{"verdict":"Maybe"}`), StepInvalidState, `"Maybe"`, 0},
		{endedCheck(corev1.PodSucceeded, 0, `{"verdict":`), StepInvalidState, "not its JSON", 0},
	}
	for i, c := range cases {
		state, reason, figures := CheckOutcome(c.pod)
		if state != c.state || (c.reason != "" && !strings.Contains(reason, c.reason)) || figures["CopyH2DMBps"] != c.figure {
			t.Errorf("case %d: %s %q %v", i, state, reason, figures)
		}
	}
	late := endedCheck(corev1.PodFailed, 137, "")
	late.Status.Reason = "DeadlineExceeded"
	if s, _, _ := CheckOutcome(late); s != StepDeadlineExceededState {
		t.Errorf("deadline: %s", s)
	}
	if q := endedCheck(corev1.PodSucceeded, 0, "").Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("gpus: %v", q)
	}
}

// A check pod names no priority class, so it cannot preempt the pods already on its node.
func TestCheckPodSetsNoPriority(t *testing.T) {
	p := CheckPod("c", "ns", "n1", &sbv1.ExternalCheck{Image: "img"}, 60, nil)
	if p.Spec.PriorityClassName != "" || p.Spec.Priority != nil {
		t.Errorf("priority class %q, priority %v", p.Spec.PriorityClassName, p.Spec.Priority)
	}
}
