package fleet

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// CheckContainer is the name of an external check's one container.
const CheckContainer = "check"

// CheckResult is the JSON an external check may leave on its termination message
// (/dev/termination-log, at most 4 KiB): docs/qualification.md "External checks".
type CheckResult struct {
	// Verdict is Passed, Failed or Invalid; empty leaves it to the exit code.
	Verdict string `json:"verdict,omitempty"`
	// Reason is a reason code or a few words.
	Reason string `json:"reason,omitempty"`
	// Figures by name; those named in the figure table are judged against the node's class.
	Figures map[string]float64 `json:"figures,omitempty"`
}

// CheckPod is the pod of an external check step on one node: no service account token, no
// restarts, the step's deadline as activeDeadlineSeconds, and no priority class (a suite
// cannot name one, so the admin's priority class policy has nothing to judge here).
func CheckPod(name, namespace, node string, check *sbv1.ExternalCheck, deadlineSeconds int64, tolerations []corev1.Toleration) *corev1.Pod {
	c := corev1.Container{Name: CheckContainer, Image: check.Image, Command: check.Command, Args: check.Args,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}}
	if check.GPUs > 0 {
		q := *resource.NewQuantity(int64(check.GPUs), resource.DecimalSI)
		c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": q}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: corev1.RestartPolicyNever, ActiveDeadlineSeconds: ptr.To(deadlineSeconds),
			AutomountServiceAccountToken: ptr.To(false), Tolerations: tolerations, Containers: []corev1.Container{c}},
	}
}

// CheckDone says whether a check's pod has ended.
func CheckDone(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// CheckOutcome turns an ended check pod into the step's outcome: its termination message's
// verdict when it gives one, else the exit code (0 passes); figures from the message. A pod
// stopped by its deadline is StepDeadlineExceeded.
func CheckOutcome(p *corev1.Pod) (StepState, string, map[string]float64) {
	if p.Status.Phase == corev1.PodFailed && p.Status.Reason == "DeadlineExceeded" {
		return StepDeadlineExceededState, "check ran past its deadline", nil
	}
	var term *corev1.ContainerStateTerminated
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == CheckContainer && cs.State.Terminated != nil {
			term = cs.State.Terminated
		}
	}
	if term == nil {
		return StepInvalidState, "check pod ended without a container status: " + p.Status.Reason + " " + p.Status.Message, nil
	}
	var res CheckResult
	msg := strings.TrimSpace(term.Message)
	if strings.HasPrefix(msg, "{") {
		if err := json.Unmarshal([]byte(msg), &res); err != nil {
			return StepInvalidState, "check's termination message is not its JSON: " + err.Error(), nil
		}
	}
	reason := res.Reason
	switch res.Verdict {
	case "Passed":
		return StepPassedState, reason, res.Figures
	case "Failed":
		return StepFailedState, reason, res.Figures
	case "Invalid":
		return StepInvalidState, reason, res.Figures
	case "":
	default:
		return StepInvalidState, fmt.Sprintf("check's verdict %q is not Passed, Failed or Invalid", res.Verdict), res.Figures
	}
	if term.ExitCode == 0 {
		return StepPassedState, reason, res.Figures
	}
	if reason == "" {
		reason = fmt.Sprintf("exit code %d", term.ExitCode)
	}
	return StepFailedState, reason, res.Figures
}
