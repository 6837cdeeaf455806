package benchctrl

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// Node resources: whether a node offers what a bench's pods ask of it. The scheduler binds a
// pod only to a node whose allocatable covers its requests, so a bench leased onto a node
// without its devices held the node while each attempt's pods waited out their deadline. Only
// scarce resources are compared: extended resources (devices, GPUs) and huge pages, which a
// node offers only when its device plugins and kernel are set up for them; every node has the
// little CPU and memory a cell pod asks for.

// slotNeed is what the ranks on one node slot ask of its node together (they run at once).
type slotNeed struct {
	total corev1.ResourceList
	// asks names, per resource, the ranks asking for it and how much, in rank order.
	asks map[corev1.ResourceName][]rankAsk
}

type rankAsk struct {
	rank string
	q    resource.Quantity
}

// needs returns each node slot's need, in benchkind.NodeSlots order (status.nodes order); nil
// when no rank asks for a scarce resource, which spares most benches any node read.
func needs(sb *sbv1.SpiralBench) []slotNeed {
	ranks, err := benchkind.Ranks(&sb.Spec)
	if err != nil {
		return nil
	}
	out := make([]slotNeed, len(benchkind.NodeSlots(&sb.Spec)))
	asked := false
	for _, rank := range ranks {
		if rank.Node >= len(out) {
			continue
		}
		need := &out[rank.Node]
		for name, q := range cellpod.Requests(sb, rank) {
			if !scarce(name) || q.IsZero() {
				continue
			}
			if need.total == nil {
				need.total, need.asks = corev1.ResourceList{}, map[corev1.ResourceName][]rankAsk{}
			}
			sum := need.total[name]
			sum.Add(q)
			need.total[name] = sum
			need.asks[name] = append(need.asks[name], rankAsk{rank.Name, q})
			asked = true
		}
	}
	if !asked {
		return nil
	}
	return out
}

// scarce: huge pages, or an extended resource (a domain-prefixed name outside kubernetes.io).
func scarce(name corev1.ResourceName) bool {
	s := string(name)
	return strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, "/") && !strings.Contains(s, "kubernetes.io/")
}

// offers says whether the node's allocatable covers the need.
func offers(n *corev1.Node, need slotNeed) bool {
	for name, q := range need.total {
		if have := n.Status.Allocatable[name]; have.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

// unoffered says what none of nodes offers of the need, "" when one of them offers all of it.
// A resource no node has enough of is named with the ranks asking for it ("nvidia.com/cx7_p0
// (the bench's client pod asks for 1)"); when each is offered but not all on one node, the
// clause says so.
func unoffered(need slotNeed, nodes []*corev1.Node) string {
	var missing []string
	for _, name := range sortedNames(need.total) {
		var best resource.Quantity
		bestOn := ""
		for _, n := range nodes {
			if have := n.Status.Allocatable[name]; have.Cmp(best) > 0 {
				best, bestOn = have, n.Name
			}
		}
		want := need.total[name]
		switch {
		case best.Cmp(want) >= 0:
			continue
		case best.IsZero():
			missing = append(missing, fmt.Sprintf("%s (%s)", name, who(need, name)))
		default:
			missing = append(missing, fmt.Sprintf("%s of %s (%s; at most %s, on %s)", want.String(), name, who(need, name), best.String(), bestOn))
		}
	}
	if len(missing) > 0 {
		return strings.Join(missing, ", nor ")
	}
	for _, n := range nodes {
		if offers(n, need) {
			return ""
		}
	}
	var all []string
	for _, name := range sortedNames(need.total) {
		q := need.total[name]
		all = append(all, fmt.Sprintf("%s of %s", q.String(), name))
	}
	return strings.Join(all, " and ") + " together (the bench's pods on one node ask for them all)"
}

// who names the ranks asking for a resource: "the bench's server pod asks for 1", or for
// ranks sharing a node "the bench's rank0 and rank1 pods ask for 2 together".
func who(need slotNeed, name corev1.ResourceName) string {
	asks := need.asks[name]
	if len(asks) == 1 {
		return fmt.Sprintf("the bench's %s pod asks for %s", asks[0].rank, asks[0].q.String())
	}
	names := make([]string, len(asks))
	for i, a := range asks {
		names[i] = a.rank
	}
	total := need.total[name]
	return fmt.Sprintf("the bench's %s pods ask for %s together", strings.Join(names, " and "), total.String())
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// fits says whether a slot's placement may run on a Ready, schedulable node: its selector and
// affinity match and it tolerates the node's NoSchedule and NoExecute taints.
func fits(ctx context.Context, p *sbv1.Placement, n *corev1.Node) bool {
	return placedOn(ctx, p, n, false) && nodeReady(n) && !n.Spec.Unschedulable
}

// placedOn says whether a slot's placement matches the node (selector, affinity, NoSchedule and
// NoExecute taints). With passing set, the taints the node lifecycle controller sets for a
// condition (node.kubernetes.io/not-ready, unschedulable, ...) are overlooked: the question is
// then whether the node could take the bench once it is Ready and uncordoned.
func placedOn(ctx context.Context, p *sbv1.Placement, n *corev1.Node, passing bool) bool {
	probe := &corev1.Pod{Spec: corev1.PodSpec{}}
	var tolerations []corev1.Toleration
	if p != nil {
		probe.Spec.NodeSelector, probe.Spec.Affinity, tolerations = p.NodeSelector, p.Affinity, p.Tolerations
	}
	ok, _ := nodeaffinity.GetRequiredNodeAffinity(probe).Match(n)
	scheduling := func(t *corev1.Taint) bool {
		return (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) &&
			!(passing && strings.HasPrefix(t.Key, "node.kubernetes.io/"))
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(ctrl.LoggerFrom(ctx), n.Spec.Taints, tolerations, scheduling, false)
	return ok && !untolerated
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
