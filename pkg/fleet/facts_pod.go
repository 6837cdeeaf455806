package fleet

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// FactsContainer is the name of a facts pod's one container.
const FactsContainer = "facts"

// factsDeadlineSeconds bounds a facts pod: a capture takes about a second; a pod that cannot
// start (image pull, a full node) is ended by its kubelet rather than held.
const factsDeadlineSeconds = 120

// factsArgs are the data plane's facts-only mode: the host's capture (GPUs, kernel, CPUs; no
// link interfaces) written as an environment message into the termination log, no traffic.
var factsArgs = []string{"capture-environment", "/dev/termination-log"}

// FactsPod is a fleet's facts pod on one node: the data plane image's environment capture, as
// an external check pod runs (no service account token, no restarts, a deadline, nothing
// privileged). It asks for no GPU, so it runs beside a node's workloads; NVIDIA's container
// runtime shows it every GPU through NVIDIA_VISIBLE_DEVICES=all, where the device plugin
// allows that for pods that request none (its default).
func FactsPod(name, namespace, node, image string, tolerations []corev1.Toleration) *corev1.Pod {
	c := corev1.Container{Name: FactsContainer, Image: image, Command: []string{"spiral-dataplane"}, Args: factsArgs,
		Env:                      []corev1.EnvVar{{Name: "NVIDIA_VISIBLE_DEVICES", Value: "all"}, {Name: "NVIDIA_DRIVER_CAPABILITIES", Value: "utility"}},
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: corev1.RestartPolicyNever, ActiveDeadlineSeconds: ptr.To(int64(factsDeadlineSeconds)),
			AutomountServiceAccountToken: ptr.To(false), Tolerations: tolerations, Containers: []corev1.Container{c}},
	}
}

// FactsOutcome reads an ended facts pod: its capture, or why there is none.
func FactsOutcome(p *corev1.Pod) (Hardware, string) {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == FactsContainer && cs.State.Terminated != nil {
			h, err := FactsCapture(cs.State.Terminated.Message)
			if err != nil {
				return Hardware{}, err.Error()
			}
			return h, ""
		}
	}
	return Hardware{}, "facts pod ended without a container status: " + p.Status.Reason + " " + p.Status.Message
}
