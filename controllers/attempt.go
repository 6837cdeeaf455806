package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/metrics"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// DefaultDeadlineSlack lets the kubelet enforce activeDeadlineSeconds first; the controller's
// own deadline catches pods that never start (unschedulable, image missing).
const DefaultDeadlineSlack = 15 * time.Second

func (r *SpiralBenchReconciler) deadlineSlack() time.Duration {
	if r.DeadlineSlack > 0 {
		return r.DeadlineSlack
	}
	return DefaultDeadlineSlack
}

// outcome is how an attempt ended.
type outcome struct {
	result *sbv1.RepeatResult // set when the run completed (Valid or Invalid)
	reason string             // why it failed otherwise
	final  bool               // retrying cannot help (bad input)
}

func (r *SpiralBenchReconciler) input(sb *sbv1.SpiralBench, cell plan.Cell, repeat, attempt int32) cellpod.Input {
	return cellpod.Input{Bench: sb, Cell: cell, Repeat: repeat, Attempt: attempt, Nodes: sb.Status.Nodes,
		DefaultImage: r.DefaultImage, PullPolicy: r.PullPolicy}
}

// startAttempt creates the receiver pod of the next repeat of cell and records the attempt.
// The pod name is deterministic, so a retry after a failed status write finds it again.
func (r *SpiralBenchReconciler) startAttempt(ctx context.Context, sb *sbv1.SpiralBench, cell plan.Cell) (time.Duration, error) {
	res := cellResult(sb, cell)
	repeat, attempt := int32(len(res.RepeatResults)), res.Attempts
	roles := cellpod.Roles(sb.Spec.Transport)
	pod := cellpod.Build(r.input(sb, cell, repeat, attempt), roles[0], "")
	if err := r.createPod(ctx, sb, pod); err != nil {
		return 0, err
	}
	now := metav1.Now()
	res.State = sbv1.CellRunning
	if res.StartTime == nil {
		res.StartTime = &now
	}
	sb.Status.ActiveAttempt = &sbv1.ActiveAttempt{CellIndex: cell.Index, Repeat: repeat, Attempt: attempt, StartTime: now}
	if sb.Status.StartTime == nil {
		sb.Status.StartTime = &now
	}
	sb.Status.Phase = sbv1.PhaseRunning
	msg := fmt.Sprintf("cell %d (%s) repeat %d, attempt %d", cell.Index, describe(sb.Spec.Transport, cell.CellParameters), repeat, attempt)
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionTrue, sbv1.ReasonCellsRunning, msg)
	r.Recorder.Eventf(sb, pod, corev1.EventTypeNormal, "CellStarted", "Start", "%s", msg)
	return time.Duration(cellpod.DeadlineSeconds(sb.Spec.Run))*time.Second + r.deadlineSlack(), nil
}

func (r *SpiralBenchReconciler) createPod(ctx context.Context, sb *sbv1.SpiralBench, pod *corev1.Pod) error {
	if err := controllerutil.SetControllerReference(sb, pod, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create pod %s: %w", pod.Name, err)
	}
	return nil
}

// observeAttempt advances the active attempt: starts the client once the server is Ready,
// and finishes the attempt when its pods have ended, one was deleted, or the deadline passed.
func (r *SpiralBenchReconciler) observeAttempt(ctx context.Context, sb *sbv1.SpiralBench, cells []plan.Cell) (time.Duration, error) {
	a := sb.Status.ActiveAttempt
	if int(a.CellIndex) >= len(cells) {
		sb.Status.ActiveAttempt = nil // the plan changed under it (spec edited while Pending)
		return 0, nil
	}
	cell := cells[a.CellIndex]
	in := r.input(sb, cell, a.Repeat, a.Attempt)
	roles := cellpod.Roles(sb.Spec.Transport)
	deadline := a.StartTime.Add(time.Duration(cellpod.DeadlineSeconds(sb.Spec.Run))*time.Second + r.deadlineSlack())
	wait := time.Until(deadline)

	receiver, err := r.getPod(ctx, sb.Namespace, cellpod.Name(sb.Name, cell.Index, a.Attempt, roles[0]))
	if err != nil {
		return 0, err
	}
	if receiver == nil {
		return 0, r.finishAttempt(sb, cell, outcome{reason: fmt.Sprintf("the %s pod was deleted before it finished", roles[0])})
	}
	if len(roles) == 1 {
		if ended(receiver) {
			return 0, r.finishAttempt(sb, cell, judge(sb, []*corev1.Pod{receiver}, a))
		}
		if wait <= 0 {
			return 0, r.finishAttempt(sb, cell, outcome{reason: deadlineReason(sb, receiver)})
		}
		return wait, nil
	}

	client, err := r.getPod(ctx, sb.Namespace, cellpod.Name(sb.Name, cell.Index, a.Attempt, roles[1]))
	if err != nil {
		return 0, err
	}
	switch {
	case client == nil && ended(receiver):
		o := outcome{reason: "the server ended before the client started: " + podEnd(receiver)}
		if t := terminated(receiver); t != nil && t.ExitCode == 2 {
			o = outcome{reason: "server refused its input: " + lastLine(t.Message), final: true}
		}
		return 0, r.finishAttempt(sb, cell, o)
	case client == nil && wait <= 0:
		return 0, r.finishAttempt(sb, cell, outcome{reason: deadlineReason(sb, receiver)})
	case client == nil:
		if !podReady(receiver) {
			return wait, nil // the barrier: the client starts only once the server listens
		}
		addr := serverAddress(receiver, sb.Spec.Topology.Server)
		if addr == "" {
			return time.Second, nil
		}
		pod := cellpod.Build(in, roles[1], addr)
		if err := r.createPod(ctx, sb, pod); err != nil {
			return 0, err
		}
		r.Recorder.Eventf(sb, pod, corev1.EventTypeNormal, "ClientStarted", "Start", "server %s is ready at %s; started %s", receiver.Name, addr, pod.Name)
		return wait, nil
	case failed(client) || failed(receiver):
		return 0, r.finishAttempt(sb, cell, judge(sb, []*corev1.Pod{receiver, client}, a))
	case ended(client) && ended(receiver):
		return 0, r.finishAttempt(sb, cell, judge(sb, []*corev1.Pod{receiver, client}, a))
	case wait <= 0:
		return 0, r.finishAttempt(sb, cell, outcome{reason: deadlineReason(sb, receiver, client)})
	}
	return wait, nil
}

// getPod reads a pod from the cache and, when the cache lacks it, from the apiserver: a pod
// just created may not be cached yet, and only the apiserver can say it is really gone.
func (r *SpiralBenchReconciler) getPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod)
	if apierrors.IsNotFound(err) {
		err = r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if pod.DeletionTimestamp != nil && !ended(pod) {
		return nil, nil // being deleted mid-run: as good as gone
	}
	return pod, nil
}

// judge turns ended pods (receiver first) into an outcome from their summaries.
func judge(sb *sbv1.SpiralBench, pods []*corev1.Pod, a *sbv1.ActiveAttempt) outcome {
	sums := make([]*summary.Summary, len(pods))
	for i, p := range pods {
		role := p.Labels[cellpod.LabelRole]
		term := terminated(p)
		if term == nil {
			if failed(p) {
				return outcome{reason: fmt.Sprintf("%s: %s", role, podEnd(p))}
			}
			continue // still running while its peer failed
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
		sums[i] = &s
	}
	var res sbv1.RepeatResult
	if len(pods) == 1 {
		res = summary.Merge(sums[0], nil, a.Repeat, a.Attempt)
	} else {
		if sums[0] == nil || sums[1] == nil {
			return outcome{reason: "a pod ended without a summary"}
		}
		res = summary.Merge(sums[0], sums[1], a.Repeat, a.Attempt)
	}
	res.StartupMilliseconds, res.WallMilliseconds = timing(pods)
	return outcome{result: &res}
}

// timing measures an attempt from its pods' own timestamps: the receiver's creation, the
// sender's container start (the last pod is the sender), and the last container's end.
func timing(pods []*corev1.Pod) (startupMs, wallMs int64) {
	created := pods[0].CreationTimestamp.Time
	sender := terminated(pods[len(pods)-1])
	if sender == nil || created.IsZero() {
		return 0, 0
	}
	end := sender.FinishedAt.Time
	for _, p := range pods {
		if t := terminated(p); t != nil && t.FinishedAt.After(end) {
			end = t.FinishedAt.Time
		}
	}
	return sender.StartedAt.Sub(created).Milliseconds(), end.Sub(created).Milliseconds()
}

// finishAttempt records an attempt's outcome in the cell's result. The attempt's pods are
// deleted by the next reconcile's cleanup, after this is persisted, so a failed status write
// never loses the outcome.
func (r *SpiralBenchReconciler) finishAttempt(sb *sbv1.SpiralBench, cell plan.Cell, o outcome) error {
	res := cellResult(sb, cell)
	res.Attempts++
	sb.Status.ActiveAttempt = nil
	if o.result != nil {
		res.RepeatResults = append(res.RepeatResults, *o.result)
		if int32(len(res.RepeatResults)) >= max(sb.Spec.Run.Repeats, 1) {
			aggregate.Fill(res)
			r.cellFinished(sb, res)
		}
		return nil
	}
	failures := res.Attempts - int32(len(res.RepeatResults))
	r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, "AttemptFailed", "Run", "cell %d attempt %d: %s", cell.Index, res.Attempts-1, o.reason)
	if o.final || failures > ptr.Deref(sb.Spec.Run.RetriesPerCell, 0) {
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

func (r *SpiralBenchReconciler) cellFinished(sb *sbv1.SpiralBench, res *sbv1.CellResult) {
	now := metav1.Now()
	res.CompletionTime = &now
	updateCounts(sb)
	kind := corev1.EventTypeNormal
	if res.State != sbv1.CellValid {
		kind = corev1.EventTypeWarning
	}
	rx := int64(0)
	if res.RXMbps != nil {
		rx = res.RXMbps.Mean
	}
	r.Recorder.Eventf(sb, nil, kind, "Cell"+string(res.State), "Run", "cell %d %s: rx %d Mb/s over %d repeats %s",
		res.Index, res.State, rx, res.Repeats, res.Message)
	metrics.CellFinished(sb, res)
}

// cellResult returns the status entry of a cell, creating it in plan order.
func cellResult(sb *sbv1.SpiralBench, cell plan.Cell) *sbv1.CellResult {
	for i := range sb.Status.CellResults {
		if sb.Status.CellResults[i].Index == cell.Index {
			return &sb.Status.CellResults[i]
		}
	}
	sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{
		Index: cell.Index, Headline: cell.Headline, Parameters: cell.CellParameters, State: sbv1.CellPending,
	})
	return &sb.Status.CellResults[len(sb.Status.CellResults)-1]
}

func finishedState(s sbv1.CellState) bool {
	return s == sbv1.CellValid || s == sbv1.CellInvalid || s == sbv1.CellFailed
}

// cleanupPods deletes cell pods that belong to no current attempt (finished attempts, or
// cells already done). The next attempt's pods are kept: they may exist before status says so.
func (r *SpiralBenchReconciler) cleanupPods(ctx context.Context, sb *sbv1.SpiralBench) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(sb.Namespace), client.MatchingLabels{cellpod.LabelBench: sb.Name}); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, sb) || p.DeletionTimestamp != nil {
			continue
		}
		cell, _ := strconv.Atoi(p.Labels[cellpod.LabelCell])
		attempt, _ := strconv.Atoi(p.Labels[cellpod.LabelAttempt])
		if keepPod(sb, int32(cell), int32(attempt)) {
			continue
		}
		if err := r.Delete(ctx, p, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func keepPod(sb *sbv1.SpiralBench, cell, attempt int32) bool {
	if a := sb.Status.ActiveAttempt; a != nil {
		return a.CellIndex == cell && a.Attempt == attempt
	}
	for _, res := range sb.Status.CellResults {
		if res.Index == cell {
			return !finishedState(res.State) && attempt == res.Attempts
		}
	}
	return attempt == 0 // a first attempt whose start was not recorded yet
}

// deleteAllPods removes every cell pod of the bench (deletion, suspension of a dead attempt).
func (r *SpiralBenchReconciler) deleteAllPods(ctx context.Context, sb *sbv1.SpiralBench) error {
	return r.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(sb.Namespace),
		client.MatchingLabels{cellpod.LabelBench: sb.Name}, client.PropagationPolicy(metav1.DeletePropagationBackground))
}

func terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return cs.State.Terminated
		}
	}
	return nil
}

func ended(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func failed(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed }

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podEnd says how a pod ended, for failure messages.
func podEnd(p *corev1.Pod) string {
	if t := terminated(p); t != nil {
		return fmt.Sprintf("exit code %d (%s): %s", t.ExitCode, t.Reason, lastLine(t.Message))
	}
	return fmt.Sprintf("phase %s: %s %s", p.Status.Phase, p.Status.Reason, p.Status.Message)
}

// deadlineReason names the deadline and what each pod was doing, e.g. unschedulable.
func deadlineReason(sb *sbv1.SpiralBench, pods ...*corev1.Pod) string {
	var states []string
	for _, p := range pods {
		s := fmt.Sprintf("%s %s", p.Labels[cellpod.LabelRole], p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				s += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
				break
			}
		}
		states = append(states, s)
	}
	return fmt.Sprintf("exceeded the cell deadline of %ds; %s", cellpod.DeadlineSeconds(sb.Spec.Run), strings.Join(states, ", "))
}

// serverAddress is where the client connects: the side's fixed address, else the first
// secondary network's IP (Multus network-status), else the pod IP.
func serverAddress(p *corev1.Pod, side sbv1.SideSpec) string {
	if side.Address != "" {
		return side.Address
	}
	if len(side.Networks) > 0 {
		var status []struct {
			Interface string   `json:"interface"`
			IPs       []string `json:"ips"`
			Default   bool     `json:"default"`
		}
		if err := json.Unmarshal([]byte(p.Annotations["k8s.v1.cni.cncf.io/network-status"]), &status); err == nil {
			for _, s := range status {
				if !s.Default && len(s.IPs) > 0 {
					return s.IPs[0]
				}
			}
		}
		return "" // wait for Multus to report the attachment
	}
	return p.Status.PodIP
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return clip(s, 400)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
