// Package policy decides whether the operator may create a bench's pods: the admin's image
// allow-list (images.go), the priority classes benches may name (priority.go), the namespaces
// allowed privileged and host-network pods (privileges.go) and the Pod Security level the
// namespace enforces (podsecurity.go). Pure: the controller reads the namespace and builds the
// pods it would create, this package judges them, before any pod exists. Each refusal says
// which list or label to change.
package policy

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Reasons of a refused bench: its Failed condition and Warning event carry them.
const (
	ReasonImageNotAllowed         = "ImageNotAllowed"
	ReasonPriorityClassNotAllowed = "PriorityClassNotAllowed"
	ReasonPrivilegedNotAllowed    = "PrivilegedNotAllowed"
	ReasonPodSecurity             = "PodSecurityForbidden"
	// ReasonPodsForbidden: the apiserver refused a pod (an admission policy or webhook).
	ReasonPodsForbidden = "PodsForbidden"
)

// Refusal is why a bench may not run, and what to change.
type Refusal struct {
	Reason  string
	Message string
}

// Where the admin's lists are set, named in messages.
const (
	imagesSetting          = "the Helm value dataplane.allowedImages (manager flag --allowed-images)"
	priorityClassesSetting = "Helm value dataplane.allowedPriorityClasses, manager flag --allowed-priority-classes"
	namespacesSetting      = "the Helm value dataplane.privilegedNamespaces (manager flag --privileged-namespaces)"
)

// CheckImages refuses a pod whose container image is neither on allowed nor in the repository
// of defaultImage (the operator's own data plane image, always allowed).
func CheckImages(allowed Images, defaultImage string, pods []*corev1.Pod) *Refusal {
	for _, p := range pods {
		for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
			own := Repository(defaultImage)
			if allowed.Allows(c.Image) || own != "" && Repository(c.Image) == own {
				continue
			}
			list := own
			if s := allowed.String(); s != "" {
				list += ", " + s
			}
			return &Refusal{Reason: ReasonImageNotAllowed, Message: fmt.Sprintf(
				"spec.image %q is not on the manager's image allow-list (%s): use one of those images, "+
					"or ask the cluster admin to add it to %s", c.Image, list, imagesSetting)}
		}
	}
	return nil
}
