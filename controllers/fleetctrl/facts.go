package fleetctrl

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/policy"
)

// Fact checks between rounds (spec.factChecks): each Passed node of the pool gets a facts pod
// (fleet.FactsPod) every intervalSeconds while no round runs. What a node's facts pods are is
// read from the cache alone: its newest pod says when it was last checked, and the next pod's
// name follows from that time, so a step that does not see its own create yet makes the same
// pod again (AlreadyExists) rather than a second one. The ended pod before the newest is
// deleted once the newest is seen; the last ended one goes when the next round starts.

// maxFactsCreates bounds the facts pods one step creates: a large pool's checks spread over
// several steps rather than a burst of creates.
const maxFactsCreates = 100

// factPods are a node's facts pods of this fleet that the manager made, newest first.
type factPods map[string][]*corev1.Pod

// readFacts lists the fleet's facts pods from the cache: only the manager's own count (an
// editor of the namespace can create a pod with the same labels, not with its mark). A node
// whose facts pod runs is claimed, so no bench starts beside it.
func (r *Reconciler) readFacts(ctx context.Context, v *fleetView) factPods {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(v.f.Namespace),
		client.MatchingLabels{sbv1.LabelFleet: v.f.Name, sbv1.LabelFleetKind: fleet.KindFacts}, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	out := factPods{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !r.ownedBy(p, v.f) || p.DeletionTimestamp != nil {
			continue
		}
		out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		if !fleet.CheckDone(p) {
			v.claim(p.Spec.NodeName)
		}
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[j].CreationTimestamp.Before(&ps[i].CreationTimestamp) })
	}
	return out
}

// judgeFacts judges each node's newest ended facts pod of this round: a node whose facts are
// wrong or worse than at its round fails at once (FailNode), or is noted in v.forward so that
// the next round starts now and benches it (BringRoundForward).
func (r *Reconciler) judgeFacts(ctx context.Context, v *fleetView, pods factPods) {
	fc := v.f.Spec.FactChecks
	var lastRound map[string][]*sbv1.SpiralBench
	for node, ps := range pods {
		p, row := ps[0], v.rows[node]
		if fc == nil || !fleet.CheckDone(p) || row == nil || row.Verdict != sbv1.NodePassed || p.Labels[sbv1.LabelFleetRound] != strconv.Itoa(int(v.f.Status.Round)) {
			continue
		}
		h, why := fleet.FactsOutcome(p)
		if why != "" {
			ctrl.LoggerFrom(ctx).Info("facts pod without a capture", "pod", p.Name, "node", node, "why", why)
			continue
		}
		if lastRound == nil {
			lastRound = roundBenchesByNode(v)
		}
		reasons := fleet.FactsBetweenRounds(h, fleet.LastRoundHardware(lastRound[node]), nodeGPUs(v.pool[node]))
		if len(reasons) == 0 {
			continue
		}
		seen := factsSeen(p)
		var details []string
		for _, re := range reasons {
			details = append(details, re.Detail)
		}
		note := "between rounds, seen " + seen.UTC().Format(time.RFC3339) + ": " + strings.Join(details, "; ")
		if fc.OnChange == sbv1.FactChangeBringRoundForward {
			if v.forward == nil {
				v.forward = map[string]bool{}
			}
			v.forward[node] = true
			r.event(v.f, true, "FactChanged", "node %s %s: round brought forward", node, shorten(note, 200))
			continue
		}
		failBetweenRounds(row, reasons, note)
		r.event(v.f, true, "FactChanged", "node %s failed %s", node, shorten(note, 200))
		r.writeVerdict(ctx, v, row)
	}
}

// failBetweenRounds fails a Passed row with the facts' reason codes (each once) and the note.
func failBetweenRounds(row *sbv1.FleetNode, reasons []fleet.Reason, note string) {
	labels := append([]string(nil), row.Reasons...)
	for _, re := range reasons {
		if l := re.Label(); !contains(labels, l) && len(labels) < 8 {
			labels = append(labels, l)
		}
	}
	row.Verdict, row.Reasons, row.Reason = sbv1.NodeFailed, labels, shorten(note, 160)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// factsSeen is when the facts pod's capture ended (its container's finish), else its creation.
func factsSeen(p *corev1.Pod) time.Time {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil && !cs.State.Terminated.FinishedAt.IsZero() {
			return cs.State.Terminated.FinishedAt.Time
		}
	}
	return p.CreationTimestamp.Time
}

// roundBenchesByNode are the single-node benches of this round by node (a CrossNode bench's
// capture is its server's alone, so LastRoundHardware reads none of it anyway).
func roundBenchesByNode(v *fleetView) map[string][]*sbv1.SpiralBench {
	out := map[string][]*sbv1.SpiralBench{}
	for _, sb := range v.benches {
		if k := sb.Labels[sbv1.LabelFleetKind]; k == fleet.KindRound || k == fleet.KindIsolate {
			for _, n := range benchNodes(sb) {
				out[n] = append(out[n], sb)
			}
		}
	}
	return out
}

// launchFacts deletes the facts pods a newer one replaced and creates each due node's next
// facts pod; it returns how long until the next node is due (0: none).
func (r *Reconciler) launchFacts(ctx context.Context, v *fleetView, pods factPods, active bool) time.Duration {
	f := v.f
	fc := f.Spec.FactChecks
	for _, ps := range pods {
		for _, old := range ps[1:] {
			if fleet.CheckDone(old) {
				_ = r.Delete(ctx, old, client.GracePeriodSeconds(0)) // ended: nothing to stop; NotFound is fine
			}
		}
	}
	if fc == nil || active || ptr.Deref(f.Spec.Suspend, false) || f.Status.Round == 0 {
		return 0
	}
	image := r.DefaultImage
	if t := f.Spec.Template; t != nil && t.Spec.Image != "" {
		image = t.Spec.Image
	}
	interval := time.Duration(fc.IntervalSeconds) * time.Second
	now := r.now()
	var wait time.Duration
	created := 0
	for _, row := range v.sortedRows() {
		node := v.pool[row.Name]
		if row.Verdict != sbv1.NodePassed || node == nil || v.busyNodes[row.Name] {
			continue
		}
		if _, held := gated(node); held {
			continue
		}
		from := f.Status.RoundCompletionTime
		if ps := pods[row.Name]; len(ps) > 0 {
			from = &ps[0].CreationTimestamp
		}
		if from == nil {
			continue
		}
		due := from.Add(interval)
		if now.Before(due) {
			if d := due.Sub(now); wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		if created == maxFactsCreates {
			v.soon = true
			break
		}
		name := fleet.BenchName(f.Name, f.Status.Round, fleet.KindFacts, row.Name, strconv.FormatInt(due.Unix(), 10))
		pod := fleet.FactsPod(name, f.Namespace, row.Name, image, fleetTolerations(f))
		if ref := policy.CheckImages(r.AllowedImages, r.DefaultImage, []*corev1.Pod{pod}); ref != nil {
			r.event(f, true, "FactChecksRefused", "%s", ref.Message)
			return 0
		}
		pod.Labels = map[string]string{sbv1.LabelFleet: f.Name, sbv1.LabelFleetKind: fleet.KindFacts, sbv1.LabelFleetRound: strconv.Itoa(int(f.Status.Round))}
		pod.Annotations = map[string]string{annotationSubject: row.Name}
		if err := controllerutil.SetControllerReference(f, pod, r.Scheme()); err != nil {
			continue
		}
		v.toCreate = append(v.toCreate, pod)
		v.busyNodes[row.Name] = true
		created++
	}
	return wait
}
