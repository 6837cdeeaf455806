package fleetctrl

import (
	"context"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/policy"
)

// A suite runs its steps in order on each node (a Pair step with the node's round partner).
// What each node has done is read from the owned objects alone: one bench (or check pod) per
// round, step and node (or pair), named deterministically, so a restarted manager finds each
// step where it was and neither loses nor repeats one.

// suiteWalk is where a node stands in its suite.
type suiteWalk struct {
	outcomes []fleet.StepOutcome
	// next is the step to create, -1 when none.
	next int
	// running names the object of the step that runs now.
	running, runningStep string
	// headline is the first bench with the fleet's headline figure; last the last bench that ran.
	headline, last *sbv1.SpiralBench
	// isolate: the next step is a Pair step to run with a partner that passed: again after the
	// pair failed (pairBench names the pair's bench), or for the first time by a node without a
	// partner (pairBench empty; alone says why it has none).
	isolate          bool
	pairBench, alone string
}

// observeSuite brings every undecided row of the round up to date with its steps' objects.
func (r *Reconciler) observeSuite(ctx context.Context, v *fleetView) {
	for _, row := range v.sortedRows() {
		if row.Verdict != sbv1.NodePending && row.Verdict != sbv1.NodeRunning {
			continue
		}
		if _, in := v.pool[row.Name]; !in {
			continue
		}
		w := r.walk(ctx, v, row, roundRun)
		switch {
		case w.running != "":
			row.Verdict, row.Bench, row.Step = sbv1.NodeRunning, w.running, w.runningStep
		case w.next >= 0:
			step := v.steps[w.next]
			if row.Verdict == sbv1.NodeRunning && row.Step == step.Name && row.Bench != "" && row.Bench != w.pairBench && r.objectExists(ctx, v, row.Bench, step) {
				continue // created by the last step, not in the cache yet
			}
			row.Verdict, row.Step, row.Bench = sbv1.NodePending, step.Name, ""
			v.next[row.Name] = w.next
			if !v.claimed[row.Name] {
				// Its last step's bench has ended: the node is free for its next step in this
				// same fleet step (one result write per step, not Pending then Running).
				delete(v.busyNodes, row.Name)
			}
			if w.isolate {
				v.isolate[row.Name] = w.pairBench
				why := "pair with " + row.Partner + " failed"
				if w.pairBench == "" {
					why = w.alone
				}
				row.Reason = shorten("step "+step.Name+": "+why+"; waits for a partner that passed", 160)
			}
		default:
			r.decide(ctx, v, row, w.outcomes, w.headline, w.last, "")
		}
	}
}

// suiteRun is one pass of a node through its suite: a round's (kind round), or the one after
// a driver upgrade (kind upgrade, its gate id), whose Pair steps run against a reference node
// that passed rather than the round partner.
type suiteRun struct {
	kind, gateID string
}

var roundRun = suiteRun{kind: fleet.KindRound}

// key is the view's key of a step's bench or check in this run.
func (s suiteRun) key(subject, step string) string {
	k := stepKey(s.kind, subject, step)
	if s.kind == fleet.KindUpgrade {
		k += "/" + s.gateID
	}
	return k
}

// walk follows the node's steps in order until one still runs or is still to be created.
func (r *Reconciler) walk(ctx context.Context, v *fleetView, row *sbv1.FleetNode, run suiteRun) suiteWalk {
	// A step walks every undecided node: their outcomes go into one buffer, written over by the
	// next walk (each walk's outcomes are used before the next begins).
	if cap(v.walked) < len(v.steps) {
		v.walked = make([]fleet.StepOutcome, 0, len(v.steps))
	}
	w := suiteWalk{next: -1, outcomes: v.walked[:0]}
	upgrade := run.kind == fleet.KindUpgrade
	stoppedBy := ""
	for i, step := range v.steps {
		out := fleet.StepOutcome{Step: step.Name}
		switch {
		case stoppedBy != "":
			out.State, out.Reason = fleet.StepSkippedState, "after "+stoppedBy+" did not pass"
		case step.AllGPUs && nodeGPUs(v.pool[row.Name]) == 0:
			out.State, out.Reason = fleet.StepNoGPUState, "no GPU on this node"
		default:
			subject := row.Name
			if step.Pair && !upgrade {
				subject = pairSubject(row.Name, row.Partner)
			}
			key := run.key(subject, step.Name)
			var done bool
			if step.Check != nil {
				done = r.walkCheck(v, row, step, key, &out, &w)
			} else {
				done = r.walkBench(ctx, v, row, step, key, !upgrade, &out, &w)
			}
			if !done {
				if w.running == "" {
					w.next = i
				}
				return w
			}
		}
		w.outcomes = append(w.outcomes, out)
		if step.Stop && !out.State.Passed() && out.State != fleet.StepSkippedState {
			stoppedBy = step.Name
		}
	}
	return w
}

// walkBench reads a bench step; false when the step has not ended (running, or to create).
// withPartner: a Pair step runs with the round partner, so it cannot run once that partner
// ended its suite, and when the pair does not pass each node runs the step again with a node
// that passed (the isolation pass of docs/fleet.md, "Pairs and the bad node"): that bench's
// outcome is the node's.
func (r *Reconciler) walkBench(ctx context.Context, v *fleetView, row *sbv1.FleetNode, step fleet.Step, key string, withPartner bool,
	out *fleet.StepOutcome, w *suiteWalk) bool {
	sb := v.benches[key]
	if sb == nil && v.foreign[key] != "" {
		out.State, out.Reason = fleet.StepInvalidState, v.foreign[key]
		return true
	}
	if sb == nil {
		if step.Pair && withPartner {
			if alone := partnerGone(v, row); alone != "" {
				return r.walkAlone(ctx, v, row, step, alone, out, w)
			}
		}
		return false
	}
	if !r.benchEnded(ctx, v, sb, step, out, w) {
		return false
	}
	if step.Pair && withPartner && !out.State.Passed() {
		if sb.Annotations[sbv1.AnnotationFleetNoReference] != "" {
			out.Reason = "pair with " + row.Partner + " failed and no node passed to tell which is at fault: " + out.Reason
		} else {
			iso := v.benches[stepKey(fleet.KindIsolate, row.Name, step.Name)]
			if why := v.foreign[stepKey(fleet.KindIsolate, row.Name, step.Name)]; iso == nil && why != "" {
				out.State, out.Reason = fleet.StepInvalidState, why
				return true
			}
			if iso == nil {
				w.isolate, w.pairBench = true, sb.Name
				return false
			}
			*out = fleet.StepOutcome{Step: step.Name}
			if !r.benchEnded(ctx, v, iso, step, out, w) {
				return false
			}
			why := "pair with " + row.Partner + " failed; with " + isolatePartner(iso, row.Name)
			if out.Reason == "" {
				out.Reason = why + " passed"
			} else {
				out.Reason = why + ": " + out.Reason
			}
			sb = iso
		}
	}
	if _, has := out.Figures[v.metric]; has && w.headline == nil {
		w.headline = sb
	}
	w.last = sb
	out.Bench = sb.Name
	return true
}

// benchEnded reads a step's bench: false while it runs (w.running names it), else its
// outcome in out. A bench past the step's deadline is ended here (StepDeadlineExceeded).
func (r *Reconciler) benchEnded(ctx context.Context, v *fleetView, sb *sbv1.SpiralBench, step fleet.Step, out *fleet.StepOutcome, w *suiteWalk) bool {
	if !benchstate.Finished(sb) && step.Deadline > 0 && r.now().After(sb.CreationTimestamp.Add(step.Deadline)) {
		sb = r.endAtDeadline(ctx, v, sb)
	}
	if sb.Annotations[sbv1.AnnotationFleetDeadlineExceeded] != "" {
		out.State, out.Reason = fleet.StepDeadlineExceededState, "ran past deadlineSeconds "+strconv.Itoa(int(step.Deadline.Seconds()))
		return true
	}
	if !benchstate.Finished(sb) {
		w.running, w.runningStep = sb.Name, step.Name
		return false
	}
	out.State, out.Reason = fleet.BenchOutcome(sb)
	out.Observation = r.observed(ctx, v, sb)
	return true
}

// walkCheck reads an external check step; false when it has not ended.
func (r *Reconciler) walkCheck(v *fleetView, row *sbv1.FleetNode, step fleet.Step, key string, out *fleet.StepOutcome, w *suiteWalk) bool {
	if ref := r.refuseCheck(v, row.Name, step); ref != nil {
		out.State, out.Reason = fleet.StepInvalidState, ref.Message
		return true
	}
	p := v.checks[key]
	if p == nil && v.foreign[key] != "" {
		out.State, out.Reason = fleet.StepInvalidState, v.foreign[key]
		return true
	}
	if p == nil {
		return false
	}
	if !fleet.CheckDone(p) {
		w.running, w.runningStep = p.Name, step.Name
		return false
	}
	var figures map[string]float64
	out.Bench = p.Name
	out.State, out.Reason, figures = fleet.CheckOutcome(p)
	out.Figures = figures
	return true
}

// refuseCheck applies the manager's image allow-list to a check, as to cell pods.
func (r *Reconciler) refuseCheck(v *fleetView, node string, step fleet.Step) *policy.Refusal {
	pod := fleet.CheckPod("check", v.f.Namespace, node, step.Check, int64(step.Deadline.Seconds()), nil)
	return policy.CheckImages(r.AllowedImages, r.DefaultImage, []*corev1.Pod{pod})
}

// endAtDeadline suspends a bench past its step's deadline and marks it, so the step's outcome
// (StepDeadlineExceeded) is read back from the bench after a restart. The mark makes the bench
// stop its running attempt at once (stopsNow): its pods are deleted and its node leases
// released once they have left, within their grace period; the bench stays until the next round.
// It returns the bench as this step should see it: marked, once the patch is written (sb itself
// is the cache's object and is not changed).
func (r *Reconciler) endAtDeadline(ctx context.Context, v *fleetView, sb *sbv1.SpiralBench) *sbv1.SpiralBench {
	patch := client.MergeFrom(sb.DeepCopy())
	marked := sb.DeepCopy()
	if marked.Annotations == nil {
		marked.Annotations = map[string]string{}
	}
	marked.Annotations[sbv1.AnnotationFleetDeadlineExceeded] = r.now().UTC().Format(time.RFC3339)
	marked.Spec.Suspend = ptr.To(true)
	if err := r.Patch(ctx, marked, patch); err != nil {
		r.event(v.f, true, "DeadlineFailed", "suspend bench %s at its step's deadline: %v", sb.Name, err)
		return sb
	}
	seen := *sb
	seen.Annotations = marked.Annotations // this step reads the mark at once
	return &seen
}

// objectExists reads past the cache: a bench or check created by the last step may not be cached yet.
func (r *Reconciler) objectExists(ctx context.Context, v *fleetView, name string, step fleet.Step) bool {
	if step.Check != nil {
		p := &corev1.Pod{}
		return r.APIReader.Get(ctx, client.ObjectKey{Namespace: v.f.Namespace, Name: name}, p) == nil && benchstate.Trusted(r.Provenance, p)
	}
	return r.benchExists(ctx, v.f.Namespace, name, "")
}

// launchStep creates the next step of a pending node (and its partner's, for a Pair step)
// within the free slots; it returns the slots used.
func (r *Reconciler) launchStep(ctx context.Context, v *fleetView, row *sbv1.FleetNode, slots int) (int, error) {
	i, ok := v.next[row.Name]
	if !ok {
		return 0, nil
	}
	step := v.steps[i]
	round := strconv.Itoa(int(v.f.Status.Round))
	if _, isolate := v.isolate[row.Name]; isolate {
		return r.launchIsolation(ctx, v, row, step, round, slots)
	}
	if !step.Pair {
		if step.Check != nil {
			return 1, r.createCheck(v, fleet.KindRound, round, row.Name, step)
		}
		return 1, r.createBench(ctx, v, fleet.KindRound, round, row.Name, []string{row.Name}, step)
	}
	partner := v.rows[row.Partner]
	pi, ready := v.next[row.Partner]
	if partner == nil || !ready || pi != i || partner.Verdict != sbv1.NodePending || v.busyNodes[partner.Name] || !r.benchable(ctx, v, partner) {
		row.Reason = shorten("step "+step.Name+" waits for partner "+row.Partner, 160)
		return 0, nil
	}
	if slots < 2 {
		return 0, nil
	}
	server, client := row.Name, partner.Name
	if server > client {
		server, client = client, server
	}
	return 2, r.createBench(ctx, v, fleet.KindRound, round, pairSubject(server, client), []string{server, client}, step)
}

// createCheck stamps out an external check's pod on the node; round is the gate id for kind
// upgrade.
func (r *Reconciler) createCheck(v *fleetView, kind, round, node string, step fleet.Step) error {
	f := v.f
	name := objectName(f, kind, round, []string{node}, step)
	pod := fleet.CheckPod(name, f.Namespace, node, step.Check, int64(step.Deadline.Seconds()), fleetTolerations(f))
	pod.Labels = map[string]string{sbv1.LabelFleet: f.Name, sbv1.LabelFleetKind: kind, sbv1.LabelFleetRound: round, sbv1.LabelFleetStep: step.Name}
	pod.Annotations = map[string]string{annotationSubject: node}
	if err := controllerutil.SetControllerReference(f, pod, r.Scheme()); err != nil {
		return err
	}
	v.toCreate = append(v.toCreate, pod)
	markStarted(v, kind, []string{node}, name, step.Name)
	return nil
}
