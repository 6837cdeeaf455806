package policy

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// LabelPrivileged set to "true" on a namespace lets its benches run privileged containers and
// use the host's network. Only who may change namespaces (a cluster admin) can set it, as with
// the Pod Security labels.
const LabelPrivileged = "spiralbench.io/privileged"

// Privileges names the spec fields by which a bench asks for more than its pods' fixed
// capabilities: a privileged container or the host's network namespace, on each side its
// ranks take (a side no rank takes, such as GPUCopy's client, asks for nothing).
func Privileges(spec *sbv1.SpiralBenchSpec) []string {
	used := []benchkind.Side{benchkind.SideServer, benchkind.SideClient}
	if ranks, err := benchkind.Ranks(spec); err == nil {
		used = nil
		for _, r := range ranks {
			for _, s := range r.Sides {
				if !slices.Contains(used, s) {
					used = append(used, s)
				}
			}
		}
	}
	var out []string
	for _, s := range []benchkind.Side{benchkind.SideServer, benchkind.SideClient} {
		if !slices.Contains(used, s) {
			continue
		}
		name, side := "server", s.Spec(spec)
		if s == benchkind.SideClient {
			name = "client"
		}
		if side.Privileged {
			out = append(out, "topology."+name+".privileged")
		}
		if side.HostNetwork {
			out = append(out, "topology."+name+".hostNetwork")
		}
	}
	return out
}

// PrivilegedAllowed reports whether benches in ns may ask for privileges: ns is labelled
// LabelPrivileged=true or listed in allowed.
func PrivilegedAllowed(ns *corev1.Namespace, allowed []string) bool {
	return ns.Labels[LabelPrivileged] == "true" || slices.Contains(allowed, ns.Name)
}

// CheckPrivileges refuses a bench that asks for privileges in a namespace not allowed them.
func CheckPrivileges(ns *corev1.Namespace, allowed []string, spec *sbv1.SpiralBenchSpec) *Refusal {
	asked := Privileges(spec)
	if len(asked) == 0 || PrivilegedAllowed(ns, allowed) {
		return nil
	}
	return &Refusal{Reason: ReasonPrivilegedNotAllowed, Message: fmt.Sprintf(
		"%s: namespace %s may not run privileged or host-network benches: remove %s, or ask the cluster admin "+
			"to label the namespace %s=true or to add it to %s",
		strings.Join(asked, " and "), ns.Name, plural(len(asked)), LabelPrivileged, namespacesSetting)}
}

func plural(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
