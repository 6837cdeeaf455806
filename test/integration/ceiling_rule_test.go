package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A rule relative to the node's own hardware decides the verdict from the environment the
// bench's own server pod captured: the same 16 Gb/s over two 200 Gb/s links (each behind a
// PCIe Gen5 x4 link) holds at 0.05 of their ceiling and breaks at 0.5, and the message says
// the fraction and the ceiling.
func TestARuleRelativeToTheCeilingJudgesTheNodesOwnLinks(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "ceiling-node-1")
	for _, c := range []struct {
		name, fraction string
		passed         bool
	}{{"ceiling-low", "0.05", true}, {"ceiling-high", "0.5", false}} {
		w := shortRun(sbtesting.MakeSpiralBench(c.name, ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(4), 1, 0).
			Rule(sbv1.AcceptanceRule{Name: "near-the-ceiling", Metric: sbv1.MetricRxMbps, MinFractionOfCeiling: c.fraction})
		sb := onTestNode(w.Obj(), "ceiling-node-1")
		sb.Spec.Topology.Links = 2
		nets := []sbv1.NetworkAttachment{{Name: "cx7-p0", Interface: "net1"}, {Name: "cx7-p1", Interface: "net2"}}
		sb.Spec.Topology.Server.Networks, sb.Spec.Topology.Client.Networks = nets, nets
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Fatalf("%s: a rule relative to the ceiling must be admitted: %v", c.name, err)
		}
		k := &kubeletStandIn{t: t, ns: ns, bench: c.name}
		k.networkStatus = func(_ *corev1.Pod) string {
			return `[{"name":"cx7-p0","interface":"net1","ips":["10.56.1.2"]},{"name":"cx7-p1","interface":"net2","ips":["10.56.2.2"]}]`
		}
		k.summary = func(cell, repeat int, role string) string { return twoLinkSummary(role, role == "server") }
		got := k.runUntil(60*time.Second, sbv1.PhaseCompleted)
		p := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionPassed)
		if p == nil {
			t.Fatalf("%s: no verdict", c.name)
		}
		if (p.Status == "True") != c.passed || !strings.Contains(p.Message, "near-the-ceiling: cell 0 RxMbps ") ||
			!strings.Contains(p.Message, " Gb/s (") {
			t.Errorf("%s: Passed %s %s %q", c.name, p.Status, p.Reason, p.Message)
		}
	}
}
