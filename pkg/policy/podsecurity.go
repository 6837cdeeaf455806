package policy

import (
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	psapi "k8s.io/pod-security-admission/api"
	pspolicy "k8s.io/pod-security-admission/policy"
)

// evaluator runs the checks of the apiserver's PodSecurity admission, from its own library,
// so a level means here what it means there.
var evaluator = sync.OnceValues(func() (pspolicy.Evaluator, error) {
	return pspolicy.NewEvaluator(pspolicy.DefaultChecks(), nil)
})

// CheckPodSecurity refuses pods that the Pod Security level the namespace enforces (its
// pod-security.kubernetes.io/enforce and enforce-version labels) would refuse, so a bench
// fails at once instead of retrying a pod the apiserver will never admit. A namespace without
// the label passes: the cluster-wide default of the apiserver's AdmissionConfiguration is not
// visible from here, and the controller reports the apiserver's own refusal
// (ReasonPodsForbidden) in that case.
func CheckPodSecurity(ns *corev1.Namespace, pods []*corev1.Pod) *Refusal {
	label, ok := ns.Labels[psapi.EnforceLevelLabel]
	if !ok {
		return nil
	}
	// Unparsable labels resolve to restricted:latest, as the apiserver resolves them.
	p, _ := psapi.PolicyToEvaluate(ns.Labels, psapi.Policy{Enforce: psapi.LevelVersion{Level: psapi.LevelPrivileged, Version: psapi.LatestVersion()}})
	if p.Enforce.Level == psapi.LevelPrivileged {
		return nil
	}
	eval, err := evaluator()
	if err != nil {
		return &Refusal{Reason: ReasonPodSecurity, Message: "cannot load the Pod Security checks: " + err.Error()}
	}
	for _, pod := range pods {
		res := pspolicy.AggregateCheckResults(eval.EvaluatePod(p.Enforce, &pod.ObjectMeta, &pod.Spec))
		if res.Allowed {
			continue
		}
		var why []string
		for i, reason := range res.ForbiddenReasons {
			if d := res.ForbiddenDetails[i]; d != "" {
				reason += " (" + d + ")"
			}
			why = append(why, reason)
		}
		return &Refusal{Reason: ReasonPodSecurity, Message: fmt.Sprintf(
			"namespace %s enforces Pod Security %q (label %s=%s), which refuses pod %s: %s. Bench pods add "+
				"capabilities for pinned memory, raw sockets and core pinning, which only the privileged level "+
				"allows: run benches in a namespace labelled %s=privileged (a cluster admin sets it)",
			ns.Name, p.Enforce.String(), psapi.EnforceLevelLabel, label, pod.Name, strings.Join(why, ", "), psapi.EnforceLevelLabel)}
	}
	return nil
}
