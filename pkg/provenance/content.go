package provenance

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// What a mark covers of each kind: what the manager reads to decide, as the manager wrote it,
// and none of what the apiserver defaults or the scheduler and kubelet fill in later (a pod's
// node name, its status, a container's termination message path).

// reserved keeps the labels and annotations of SpiralBench's own prefix, except the mark.
func reserved(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasPrefix(k, "spiralbench.io/") && k != Annotation {
			out[k] = v
		}
	}
	return out
}

type containerContent struct {
	Name, Image     string
	Command, Args   []string
	Env             []envContent
	Mounts          []string
	Privileged      *bool
	CapabilitiesAdd []corev1.Capability
	Limits          corev1.ResourceList
}

type envContent struct{ Name, Value, Field string }

type podContent struct {
	Labels, Annotations map[string]string
	Containers          []containerContent
	NodeSelector        map[string]string
	Affinity            *corev1.Affinity
	HostNetwork         bool
	Volumes             []string
}

// PodContent is what a cell or check pod's mark covers: its SpiralBench labels and annotations,
// its Multus networks, what each container runs and with which privileges, and where it may run.
// An image changed on a running pod (`kubectl set image`) breaks the mark.
func PodContent(p *corev1.Pod) any {
	c := podContent{Labels: reserved(p.Labels), Annotations: reserved(p.Annotations), NodeSelector: p.Spec.NodeSelector,
		Affinity: p.Spec.Affinity, HostNetwork: p.Spec.HostNetwork}
	if n, ok := p.Annotations["k8s.v1.cni.cncf.io/networks"]; ok {
		c.Annotations = maps.Clone(c.Annotations)
		c.Annotations["k8s.v1.cni.cncf.io/networks"] = n
	}
	for _, list := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, ct := range list {
			cc := containerContent{Name: ct.Name, Image: ct.Image, Command: ct.Command, Args: ct.Args, Limits: ct.Resources.Limits}
			for _, e := range ct.Env {
				ec := envContent{Name: e.Name, Value: e.Value}
				if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
					ec.Field = e.ValueFrom.FieldRef.FieldPath
				}
				cc.Env = append(cc.Env, ec)
			}
			for _, m := range ct.VolumeMounts {
				cc.Mounts = append(cc.Mounts, m.Name+":"+m.MountPath)
			}
			if sc := ct.SecurityContext; sc != nil {
				cc.Privileged = sc.Privileged
				if sc.Capabilities != nil {
					cc.CapabilitiesAdd = sc.Capabilities.Add
				}
			}
			c.Containers = append(c.Containers, cc)
		}
	}
	for _, v := range p.Spec.Volumes {
		c.Volumes = append(c.Volumes, v.Name+":"+volumeSource(v.VolumeSource))
	}
	return c
}

// volumeSource names a volume's source and what it refers to (defaults left out).
func volumeSource(s corev1.VolumeSource) string {
	switch {
	case s.EmptyDir != nil:
		return "emptyDir:" + string(s.EmptyDir.Medium)
	case s.HostPath != nil:
		return "hostPath:" + s.HostPath.Path
	case s.ConfigMap != nil:
		return "configMap:" + s.ConfigMap.Name
	case s.Secret != nil:
		return "secret:" + s.Secret.SecretName
	case s.PersistentVolumeClaim != nil:
		return "pvc:" + s.PersistentVolumeClaim.ClaimName
	}
	return "other"
}

// LabelledContent is what the mark of a custom object covers: its SpiralBench labels and
// annotations and body, the part the manager wrote (a spec as the apiserver stored it, with its
// defaults; a result record's fields).
func LabelledContent(labels, annotations map[string]string, body any) any {
	return struct {
		Labels, Annotations map[string]string
		Body                any
	}{reserved(labels), reserved(annotations), body}
}
