package benchctrl

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Judging an attempt from its ranks' pods. Pure: pods in, outcome out.

// outcome is how an attempt ended.
type outcome struct {
	results []sbv1.RepeatResult // the repeats it measured (Valid or Invalid), in repeat order
	reason  string              // why it did not measure every repeat it ran; empty when it did
	final   bool                // retrying cannot help (bad input)
	// What rank 0 captured of its host (summary "env", asked for by --environment) and the
	// digest of the image its kubelet ran: the run's environment, recorded once.
	env         *summary.Env
	imageDigest string
	envNote     string // what the capture lost on its way (status.environment.captureNote)
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
	if t := benchstate.Terminated(p); t != nil && t.ExitCode == 2 {
		return outcome{reason: rank0.Name + " refused its input: " + lastLine(t.Message), final: true}
	}
	return outcome{reason: fmt.Sprintf("the %s ended before the %s started: %s", rank0.Name, strings.Join(missing, ", "), podEnd(p))}
}

func anyFailed(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if benchstate.PodFailed(p) {
			return true
		}
	}
	return false
}

// anyRefused: some pod's data plane refused its input (exit code 2), which no retry changes.
func anyRefused(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if t := benchstate.Terminated(p); t != nil && t.ExitCode == 2 {
			return true
		}
	}
	return false
}

// anyRunning: some pod runs (and may still write its summary lines).
func anyRunning(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && !benchstate.PodEnded(p) {
			return true
		}
	}
	return false
}

func allEnded(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if !benchstate.PodEnded(p) {
			return false
		}
	}
	return true
}

// judge turns the ranks' ended pods (rank order, none nil) into an outcome. Each pod's
// termination message holds a summary line per repeat it finished; repeat j is measured when
// every rank has a Valid or Invalid line j, and the repeats before the first that is not are
// kept. The first rank that failed or refused names the failure. A repeat whose summaries echo
// another cell than echo (transport, payload, pairs, target) is Invalid.
func judge(ranks []benchkind.Rank, pods []*corev1.Pod, a *sbv1.ActiveAttempt, echo summary.Echo) outcome {
	want := int(max(a.Repeats, 1))
	lines := make([][]summary.Summary, len(pods))
	var o outcome
	fail := func(final bool, format string, args ...any) {
		if o.reason == "" {
			o.reason, o.final = fmt.Sprintf(format, args...), final
		}
	}
	for i, p := range pods {
		role := ranks[i].Name
		term := benchstate.Terminated(p)
		if term == nil {
			if benchstate.PodFailed(p) {
				fail(false, "%s: %s", role, podEnd(p))
			}
			continue // still running while a peer failed
		}
		var err error
		lines[i], err = summary.ParseRepeats(term.Message)
		switch {
		case term.ExitCode == 2:
			fail(true, "%s refused its input: %s", role, lastLine(term.Message))
		case term.ExitCode != 0 && len(lines[i]) == 0:
			fail(false, "%s exited with code %d: %s", role, term.ExitCode, lastLine(term.Message))
		case err != nil && term.ExitCode == 0:
			fail(false, "%s: %v", role, err)
		}
	}
	for j := 0; j < want; j++ {
		parts := make([]summary.Part, len(pods))
		for i := range pods {
			if j >= len(lines[i]) {
				fail(false, "%s ended after %d of %d repeats: %s", ranks[i].Name, len(lines[i]), want, exitOf(pods[i]))
				return o.withTiming(pods)
			}
			s := lines[i][j]
			if s.State == "Failed" {
				fail(false, "%s failed: %s", ranks[i].Name, s.Reason)
				return o.withTiming(pods)
			}
			parts[i] = summary.Part{Summary: &s, Receives: ranks[i].Receives, Sends: ranks[i].Sends}
		}
		res := summary.Merge(parts, a.Repeat+int32(j), a.Attempt)
		for i, p := range parts {
			if d := p.Summary.Mismatch(echo); d != "" {
				res.State, res.Message = sbv1.CellInvalid, clip(ranks[i].Name+" measured another cell: "+d, 500)
				break
			}
		}
		o.results = append(o.results, res)
		if o.env == nil {
			o.env, o.imageDigest = summary.Environment(parts), imageDigest(pods[0])
		}
	}
	if len(o.results) > 0 {
		o.env, o.envNote = relayedEnvironment(pods[0], o.env)
	}
	return o.withTiming(pods)
}

// exitOf says how a pod's container ended without its termination message (summary lines).
func exitOf(p *corev1.Pod) string {
	if t := benchstate.Terminated(p); t != nil {
		return fmt.Sprintf("exit code %d (%s)", t.ExitCode, t.Reason)
	}
	return fmt.Sprintf("phase %s", p.Status.Phase)
}

// withTiming puts the attempt's start-up and wall time on its first result.
func (o outcome) withTiming(pods []*corev1.Pod) outcome {
	if len(o.results) > 0 {
		o.results[0].StartupMilliseconds, o.results[0].WallMilliseconds = timing(pods)
	}
	return o
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
		t := benchstate.Terminated(p)
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
