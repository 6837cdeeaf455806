package policy

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// AnyPriorityClass is the allow-list entry that allows every priority class.
const AnyPriorityClass = "*"

// systemPrefix starts the names Kubernetes keeps for its own classes (system-node-critical,
// system-cluster-critical): pods at those priorities preempt almost anything on a node,
// DaemonSets and the network plugin included.
const systemPrefix = "system-"

// PriorityClasses are the priority classes bench pods may name. The zero value, an empty
// list, allows every class except the system-* ones, so a manager set up without the list
// (a test, an old install) still keeps benches from preempting system pods.
type PriorityClasses struct {
	names []string
	any   bool
}

// NewPriorityClasses parses an allow-list of class names or AnyPriorityClass; it fails on an
// entry that cannot be a PriorityClass name, which would otherwise never match.
func NewPriorityClasses(entries ...string) (PriorityClasses, error) {
	var l PriorityClasses
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		switch {
		case e == "":
		case e == AnyPriorityClass:
			l.any = true
		case len(validation.IsDNS1123Subdomain(e)) > 0:
			return PriorityClasses{}, fmt.Errorf("allowed priority class %q: %s", e, strings.Join(validation.IsDNS1123Subdomain(e), "; "))
		default:
			l.names = append(l.names, e)
		}
	}
	return l, nil
}

// Allows reports whether a pod may name class; naming none is always allowed.
func (l PriorityClasses) Allows(class string) bool {
	switch {
	case class == "" || l.any:
		return true
	case len(l.names) == 0:
		return !strings.HasPrefix(class, systemPrefix)
	}
	return slices.Contains(l.names, class)
}

// String says what the list allows, for messages.
func (l PriorityClasses) String() string {
	switch {
	case l.any:
		return "any class"
	case len(l.names) == 0:
		return "any class not named " + systemPrefix + "*"
	}
	return "only " + strings.Join(l.names, ", ")
}

// CheckPriorityClass refuses a pod whose priority class the list does not allow. The pods
// are judged, not the spec, so whatever the pod builder copies into them is what counts.
func CheckPriorityClass(allowed PriorityClasses, pods []*corev1.Pod) *Refusal {
	for _, p := range pods {
		if class := p.Spec.PriorityClassName; !allowed.Allows(class) {
			return &Refusal{Reason: ReasonPriorityClassNotAllowed, Message: fmt.Sprintf(
				"spec.priorityClassName %s is not one this operator allows (%s; %s): remove it, or ask the "+
					"cluster admin to allow it there", class, allowed, priorityClassesSetting)}
		}
	}
	return nil
}
