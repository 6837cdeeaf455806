package cellpod

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The environment relay. Each container has its own 4 KiB termination message; the data
// plane's is shared by every repeat an attempt groups, and the environment capture was the
// first thing dropped from it. So rank 0's pod, on the attempts that capture the environment,
// gets a second container of the same image whose only job is to carry the capture in its own
// termination message: the data plane writes it (gzip+base64, at most 4 KiB) to a file in the
// pod's shared volume once its first repeat ends, and the relay copies it to its termination
// log and exits. Chosen over reading the pod's log (RBAC for pods/log, and a log is not a
// status the apiserver keeps) and over an init container (the NICs are known only once the
// links run): the message is pod status written by the kubelet alone, of a container in the
// marked pod's spec, so a namespace editor cannot forge it (RelayMessage).
const (
	// DataplaneContainer runs the data plane; EnvironmentContainer is the relay.
	DataplaneContainer   = "dataplane"
	EnvironmentContainer = "environment"
	environmentFile      = readyDir + "/environment"
)

// relayEnvironment adds the relay to rank 0's pod when the attempt captures the environment.
func relayEnvironment(pod *corev1.Pod, dataplane corev1.Container, sb *sbv1.SpiralBench) {
	if !NeedsEnvironment(sb) {
		return
	}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
		Name:                     EnvironmentContainer,
		Image:                    dataplane.Image,
		ImagePullPolicy:          dataplane.ImagePullPolicy,
		Command:                  []string{"spiral-dataplane"},
		Args:                     []string{"relay-environment", environmentFile, "/dev/termination-log"},
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		VolumeMounts:             []corev1.VolumeMount{{Name: "run", MountPath: readyDir, ReadOnly: true}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	})
}

// IsRelay says a container status is the relay's, not the data plane's.
func IsRelay(cs corev1.ContainerStatus) bool { return cs.Name == EnvironmentContainer }

// RelayMessage is the relay's termination message: only from a container of that name in the
// pod's own spec (the operator's mark covers the spec), never from an ephemeral or injected
// one; "" until the relay has ended or when the pod has no relay.
func RelayMessage(p *corev1.Pod) string {
	inSpec := false
	for _, c := range p.Spec.Containers {
		inSpec = inSpec || c.Name == EnvironmentContainer
	}
	if !inSpec {
		return ""
	}
	for _, cs := range p.Status.ContainerStatuses {
		if IsRelay(cs) && cs.State.Terminated != nil {
			return cs.State.Terminated.Message
		}
	}
	return ""
}
