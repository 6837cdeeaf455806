package benchctrl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/metrics"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// DefaultDeadlineSlack lets the kubelet enforce activeDeadlineSeconds first; the controller's
// own deadline catches pods that never start (unschedulable, image missing).
const DefaultDeadlineSlack = 15 * time.Second

func (r *Reconciler) deadlineSlack() time.Duration {
	if r.DeadlineSlack > 0 {
		return r.DeadlineSlack
	}
	return DefaultDeadlineSlack
}

func (r *Reconciler) input(sb *sbv1.SpiralBench, cell plan.Cell, repeat, repeats, attempt int32) (cellpod.Input, error) {
	in, err := cellpod.NewInput(sb, cell, repeat, repeats, attempt, sb.Status.Nodes)
	in.DefaultImage, in.PullPolicy = r.DefaultImage, r.PullPolicy
	if r.Rendezvous != nil {
		in.Rendezvous = r.Rendezvous.Advertise
	}
	return in, err
}

// startAttempt creates rank 0's pod (with a single rank, the only pod) of the next repeats of
// cell and records the attempt. The pod name is deterministic, so a retry after a failed
// status write finds it again.
func (r *Reconciler) startAttempt(ctx context.Context, sb *sbv1.SpiralBench, cell plan.Cell) (time.Duration, error) {
	res := cellResult(sb, cell)
	repeat, attempt := int32(len(res.RepeatResults)), res.Attempts
	repeats := benchkind.RepeatsFrom(&sb.Spec, repeat)
	in, err := r.input(sb, cell, repeat, repeats, attempt)
	if err != nil {
		return 0, err
	}
	pod := cellpod.Build(in, in.Ranks[0], "")
	existed, err := r.createPod(ctx, sb, pod)
	if f, ok := benchstate.AsForeign(err); ok {
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: f.Error()})
	}
	if err != nil {
		return r.createRefused(ctx, sb, err)
	}
	if err := r.renewLeases(ctx, sb); err != nil {
		var q *queuedError
		if !errors.As(err, &q) {
			return 0, err
		}
		// Our hold had expired and another bench took a node meanwhile: give the pod back, wait.
		if err := r.deleteAllPods(ctx, sb); err != nil {
			return 0, err
		}
		r.releaseNodes(ctx, sb, sb.Status.Nodes)
		r.queue(sb, q.msg)
		return queuedRetry, nil
	}
	now := metav1.Now()
	res.State = sbv1.CellRunning
	if res.StartTime == nil {
		res.StartTime = &now
	}
	sb.Status.ActiveAttempt = &sbv1.ActiveAttempt{CellIndex: cell.Index, Repeat: repeat, Repeats: repeats, Attempt: attempt, StartTime: now}
	if sb.Status.StartTime == nil {
		sb.Status.StartTime = &now
	}
	sb.Status.Phase = sbv1.PhaseRunning
	msg := fmt.Sprintf("cell %d (%s) %s, attempt %d", cell.Index, describe(sb.Spec.Transport, cell.CellParameters), repeatRange(repeat, repeats), attempt)
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionTrue, sbv1.ReasonCellsRunning, msg)
	r.Recorder.Eventf(sb, pod, corev1.EventTypeNormal, "CellStarted", "Start", "%s", msg)
	if existed {
		// This start is retaken after its status write was lost (a timeout, a restart): the
		// pod may have run, even ended, and its events were spent on a reconcile that did not
		// know of the attempt. Look at it at once rather than at the deadline.
		return 0, nil
	}
	return time.Duration(in.Deadline())*time.Second + r.deadlineSlack(), nil
}

func repeatRange(first, n int32) string {
	if n <= 1 {
		return fmt.Sprintf("repeat %d", first)
	}
	return fmt.Sprintf("repeats %d-%d", first, first+n-1)
}

// createPod creates a cell pod with the manager's mark. A pod already there under its name is
// the one an earlier step created only if it carries the mark; else the error is a
// *provenance.ForeignError and the pod is left alone.
func (r *Reconciler) createPod(ctx context.Context, sb *sbv1.SpiralBench, pod *corev1.Pod) (existed bool, err error) {
	if err := controllerutil.SetControllerReference(sb, pod, r.Scheme()); err != nil {
		return false, err
	}
	if err := benchstate.Mark(r.Provenance, pod); err != nil {
		return false, err
	}
	if err := r.Create(ctx, pod); err != nil {
		if apierrors.IsAlreadyExists(err) {
			there := &corev1.Pod{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pod), there); err != nil {
				return false, fmt.Errorf("read pod %s in the way: %w", pod.Name, err)
			}
			return true, benchstate.Foreign(r.Provenance, there)
		}
		return false, fmt.Errorf("create pod %s: %w", pod.Name, err)
	}
	return false, nil
}

// observeAttempt advances the active attempt: once rank 0's container runs it starts the other
// ranks together, and it finishes the attempt when the pods have ended (or one failed), rank 0 was
// deleted, a pod cannot be scheduled for want of resources (pod_unschedulable.go), or the
// deadline passed.
func (r *Reconciler) observeAttempt(ctx context.Context, sb *sbv1.SpiralBench, cells []plan.Cell) (time.Duration, error) {
	a := sb.Status.ActiveAttempt
	if int(a.CellIndex) >= len(cells) {
		sb.Status.ActiveAttempt = nil // the plan changed under it (spec edited while Pending)
		return 0, nil
	}
	cell := cells[a.CellIndex]
	in, err := r.input(sb, cell, a.Repeat, max(a.Repeats, 1), a.Attempt)
	if err != nil {
		return 0, err
	}
	deadline := a.StartTime.Add(time.Duration(in.Deadline())*time.Second + r.deadlineSlack())
	wait := time.Until(deadline)

	pods, err := r.rankPods(ctx, sb, in, false)
	if err == nil {
		if missing, _ := peersMissing(in.Ranks, pods); len(missing) > 0 && pods[0] != nil && (benchstate.PodEnded(pods[0]) || wait <= 0) {
			// Failing the attempt for peers that never ran takes the apiserver's word for it.
			pods, err = r.rankPods(ctx, sb, in, true)
		}
	}
	if f, ok := benchstate.AsForeign(err); ok {
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: f.Error()})
	}
	if err != nil {
		return 0, err
	}
	rendezvous := pods[0]
	if rendezvous == nil {
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: fmt.Sprintf("the %s pod was deleted before it finished", in.Ranks[0].Name)})
	}
	unschedulable, retry, err := r.unschedulableEnd(ctx, sb, in, pods)
	if err != nil {
		return 0, err
	}
	if retry > 0 && retry < wait {
		wait = retry // look again when its grace ends; wait stays above 0 before the deadline
	}
	missing, present := peersMissing(in.Ranks, pods)
	// Every rank exists and the attempt is over: all ended, or one failed and the rest cannot help.
	ended := len(missing) == 0 && (allEnded(pods) || anyFailed(pods) && (in.Repeats <= 1 || wait <= 0 || !anyRunning(pods) || anyRefused(pods)))
	if msg := r.confirmRendezvous(in, rendezvous); msg != "" {
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: msg})
	}
	switch {
	case unschedulable != "":
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: unschedulable})
	case len(missing) > 0 && benchstate.PodEnded(rendezvous):
		return 0, r.finishAttempt(ctx, sb, cell, endedBeforePeers(in.Ranks[0], rendezvous, missing))
	case len(missing) > 0 && wait <= 0:
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: deadlineReason(in, present...)})
	case len(missing) > 0:
		return r.startPeers(ctx, sb, in, rendezvous, wait)
	case ended:
		// A running pod of several repeats that lost its peer ends on its own soon (its control
		// connection breaks) with the repeats it finished in its summary: wait for it. Not after
		// a refusal (exit 2, before any traffic): its peer may wait a minute for a connection
		// that never comes, and no retry can help.
		o := judge(in.Ranks, pods, a, in.Echo())
		if msg := unconfirmedRendezvous(in, rendezvous); msg != "" && len(o.results) > 0 {
			o = outcome{reason: msg} // measured, but against an address nobody confirmed
		}
		return 0, r.finishAttempt(ctx, sb, cell, o)
	case wait <= 0:
		return 0, r.finishAttempt(ctx, sb, cell, outcome{reason: deadlineReason(in, pods...)})
	}
	return wait, nil
}

// rankPods reads the pod of every rank, in rank order; nil where a pod does not exist. Rank 0's
// absence is always the apiserver's word (it fails the attempt); the other ranks' is the
// cache's unless peersLive: a peer the cache lacks is only (re)created, which is harmless if it
// exists, and reading each from the apiserver until it is started cost a request a cell.
func (r *Reconciler) rankPods(ctx context.Context, sb *sbv1.SpiralBench, in cellpod.Input, peersLive bool) ([]*corev1.Pod, error) {
	pods := make([]*corev1.Pod, len(in.Ranks))
	for i, rank := range in.Ranks {
		p, err := r.getPod(ctx, sb.Namespace, cellpod.Name(sb.Name, in.Cell.Index, in.Attempt, rank.Name), i == 0 || peersLive)
		if err != nil {
			return nil, err
		}
		pods[i] = p
	}
	return pods, nil
}

// startPeers creates the ranks after rank 0, together, as soon as rank 0's address is known:
// at once when it is fixed (the side's address, or the leased node's own address for a
// host-network pod), else once rank 0's container runs and has an address. They start while
// rank 0 sets up: the barrier that keeps them from measuring early is rank 0's own, since it
// listens only once every buffer is allocated and the others retry their connect until then
// (--connect-timeout-ms; as long as the attempt may last when they may start first). Waiting for
// the kubelet to report rank 0 running costs every cell a relist period (docs/benchmarks/operator.md).
func (r *Reconciler) startPeers(ctx context.Context, sb *sbv1.SpiralBench, in cellpod.Input, rendezvous *corev1.Pod, wait time.Duration) (time.Duration, error) {
	side := in.Ranks[0].Sides[0].Spec(&sb.Spec)
	node := ""
	if i := in.Ranks[0].Node; i < len(in.Nodes) {
		node = in.Nodes[i]
	}
	addr, err := r.knownAddress(ctx, side, node)
	if err != nil {
		return 0, err
	}
	in.PeersFirst = addr != ""
	if !in.PeersFirst && in.ViaRendezvous() {
		// Rank 0 announces its address to the manager's rendezvous once it listens; the other
		// ranks start now and wait there for it (pkg/rendezvous).
		in.PeersFirst, in.RendezvousKey = true, string(rendezvous.UID)
	}
	if !in.PeersFirst {
		if !containerStarted(rendezvous) {
			return wait, nil
		}
		if addr = rendezvousAddress(rendezvous, side, sb.Spec.Topology.Links); addr == "" {
			return time.Second, nil
		}
	}
	var started []string
	for _, rank := range in.Ranks[1:] {
		pod := cellpod.Build(in, rank, addr)
		existed, err := r.createPod(ctx, sb, pod)
		if f, ok := benchstate.AsForeign(err); ok {
			return 0, r.finishAttempt(ctx, sb, in.Cell, outcome{reason: f.Error()})
		}
		if err != nil {
			if refusedForGood(err) {
				return 0, r.refuse(ctx, sb, podsForbidden(sb, err))
			}
			return 0, err
		}
		if !existed {
			started = append(started, pod.Name)
		}
	}
	if len(started) == 0 { // started by an earlier step the cache had not shown yet
		return wait, nil
	}
	how := "runs at"
	switch {
	case in.RendezvousKey != "":
		how, addr = "will announce its address to the rendezvous at", in.Rendezvous
	case in.PeersFirst:
		how = "will listen at"
	}
	r.Recorder.Eventf(sb, rendezvous, corev1.EventTypeNormal, "PeersStarted", "Start", "%s %s %s %s; started %s",
		in.Ranks[0].Name, rendezvous.Name, how, addr, strings.Join(started, ", "))
	return wait, nil
}

// finishAttempt records an attempt's outcome: its record (every repeat it measured, and why
// it measured fewer than it ran, if it did), then the cell's result. The record is written
// first, so the attempt's pods may be deleted in the same step (the step's cleanup): a status
// write that fails after that finds the record again (recordAttempt keeps the first).
func (r *Reconciler) finishAttempt(ctx context.Context, sb *sbv1.SpiralBench, cell plan.Cell, o outcome) error {
	res := cellResult(sb, cell)
	rec, err := r.recordAttempt(ctx, sb, cell.Index, res.Attempts, o)
	if err != nil {
		return err
	}
	o.results, o.reason, o.final = rec.RepeatResults, rec.Message, rec.Final
	res.Attempts++
	sb.Status.ActiveAttempt = nil
	recordCapturedEnvironment(sb, o)
	res.RepeatResults = append(res.RepeatResults, o.results...)
	if o.reason == "" {
		if int32(len(res.RepeatResults)) >= max(sb.Spec.Run.Repeats, 1) {
			aggregate.Fill(res)
			r.cellFinished(sb, res)
		}
		return nil
	}
	res.FailedAttempts++
	r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, "AttemptFailed", "Run", "cell %d attempt %d (%d repeats kept): %s",
		cell.Index, res.Attempts-1, len(o.results), o.reason)
	if int32(len(res.RepeatResults)) >= max(sb.Spec.Run.Repeats, 1) {
		// Every repeat was measured before a pod failed (e.g. while writing its last record).
		aggregate.Fill(res)
		r.cellFinished(sb, res)
		return nil
	}
	if o.final || res.FailedAttempts > ptr.Deref(sb.Spec.Run.RetriesPerCell, 0) {
		res.State = sbv1.CellFailed
		res.Message = clip(fmt.Sprintf("failed after %d attempt(s): %s", res.Attempts, o.reason), 1000)
		if len(res.RepeatResults) > 0 {
			// Keep what the earlier repeats measured beside the failure.
			state, msg := res.State, res.Message
			aggregate.Fill(res)
			res.State, res.Message = state, msg
		}
		r.cellFinished(sb, res)
		return nil
	}
	res.Message = clip("retrying: "+o.reason, 1000)
	return nil
}

func (r *Reconciler) cellFinished(sb *sbv1.SpiralBench, res *sbv1.CellResult) {
	now := metav1.Now()
	res.CompletionTime = &now
	if res.Repeats > 0 {
		res.BoundBy = clip(explain.Cell(sb, res).Short(), 160)
	}
	noisy := aggregate.FlagNoisy(res, sb.Spec.Run.NoisySpreadPercent)
	updateCounts(sb)
	if noisy {
		// A flag, not a failure: the verdict bounds the spread only where a rule says so.
		r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, "NoisyCell", "Run", "cell %d: %s spreads %s %% over its repeats (coefficient of variation), above run.noisySpreadPercent %d %%",
			res.Index, res.Spread.Figure, figure.MilliPercent.Format(float64(res.Spread.CVMilliPercent)), aggregate.NoisyPercent(sb.Spec.Run.NoisySpreadPercent))
	}
	kind := corev1.EventTypeNormal
	if res.State != sbv1.CellValid {
		kind = corev1.EventTypeWarning
	}
	rx, _ := figure.Rx.Mean(res)
	r.Recorder.Eventf(sb, nil, kind, "Cell"+string(res.State), "Run", "cell %d %s: rx %d %s over %d repeats %s",
		res.Index, res.State, rx, figure.Rx.Unit.Name, res.Repeats, res.Message)
	finished := *res
	r.afterPersist(func() { metrics.CellFinished(sb, &finished) })
}
