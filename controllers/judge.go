package controllers

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Judging an attempt from its ranks' pods. Pure: pods in, outcome out.

// outcome is how an attempt ended.
type outcome struct {
	result *sbv1.RepeatResult // set when the run completed (Valid or Invalid)
	reason string             // why it failed otherwise
	final  bool               // retrying cannot help (bad input)
	// What rank 0 captured of its host (summary "env", asked for by --environment) and the
	// digest of the image its kubelet ran: the run's environment, recorded once.
	env         *summary.Env
	imageDigest string
}

// peersMissing names the ranks after rank 0 whose pods do not exist, and returns the pods
// that do, rank 0 first.
func peersMissing(ranks []benchkind.Rank, pods []*corev1.Pod) (missing []string, present []*corev1.Pod) {
	for i, p := range pods {
		switch {
		case p != nil:
			present = append(present, p)
		case i > 0:
			missing = append(missing, ranks[i].Name)
		}
	}
	return missing, present
}

// endedBeforePeers is the outcome when rank 0 ended before the other ranks were started:
// final when it refused its input (exit code 2), worth a retry otherwise.
func endedBeforePeers(rank0 benchkind.Rank, p *corev1.Pod, missing []string) outcome {
	if t := terminated(p); t != nil && t.ExitCode == 2 {
		return outcome{reason: rank0.Name + " refused its input: " + lastLine(t.Message), final: true}
	}
	return outcome{reason: fmt.Sprintf("the %s ended before the %s started: %s", rank0.Name, strings.Join(missing, ", "), podEnd(p))}
}

func anyFailed(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if failed(p) {
			return true
		}
	}
	return false
}

func allEnded(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if !ended(p) {
			return false
		}
	}
	return true
}

// judge turns the ranks' ended pods (rank order, none nil) into an outcome: the first rank
// that failed or refused decides a failure; otherwise their summaries merge into a result.
func judge(ranks []benchkind.Rank, pods []*corev1.Pod, a *sbv1.ActiveAttempt) outcome {
	parts := make([]summary.Part, len(pods))
	for i, p := range pods {
		role := ranks[i].Name
		term := terminated(p)
		if term == nil {
			if failed(p) {
				return outcome{reason: fmt.Sprintf("%s: %s", role, podEnd(p))}
			}
			continue // still running while a peer failed
		}
		if term.ExitCode == 2 {
			return outcome{reason: fmt.Sprintf("%s refused its input: %s", role, lastLine(term.Message)), final: true}
		}
		if term.ExitCode != 0 {
			return outcome{reason: fmt.Sprintf("%s exited with code %d: %s", role, term.ExitCode, lastLine(term.Message))}
		}
		s, err := summary.Parse(term.Message)
		if err != nil {
			return outcome{reason: fmt.Sprintf("%s: %v", role, err)}
		}
		if s.State == "Failed" {
			return outcome{reason: fmt.Sprintf("%s failed: %s", role, s.Reason)}
		}
		parts[i] = summary.Part{Summary: &s, Receives: ranks[i].Receives, Sends: ranks[i].Sends}
	}
	for _, p := range parts {
		if p.Summary == nil {
			return outcome{reason: "a pod ended without a summary"}
		}
	}
	res := summary.Merge(parts, a.Repeat, a.Attempt)
	res.StartupMilliseconds, res.WallMilliseconds = timing(pods)
	return outcome{result: &res, env: summary.Environment(parts), imageDigest: imageDigest(pods[0])}
}

// timing measures an attempt from its pods' own timestamps: rank 0's creation, the last
// rank's container start (the barrier puts the senders last), and the last container's end.
func timing(pods []*corev1.Pod) (startupMs, wallMs int64) {
	created := pods[0].CreationTimestamp.Time
	if created.IsZero() {
		return 0, 0
	}
	var start, end = created, created
	for _, p := range pods {
		t := terminated(p)
		if t == nil {
			return 0, 0
		}
		if t.StartedAt.After(start) {
			start = t.StartedAt.Time
		}
		if t.FinishedAt.After(end) {
			end = t.FinishedAt.Time
		}
	}
	return start.Sub(created).Milliseconds(), end.Sub(created).Milliseconds()
}
