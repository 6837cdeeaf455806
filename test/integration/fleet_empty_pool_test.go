package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A fleet created before any node matches its selector waits for one instead of ending an
// empty first round at once; the node that joins is benched in round 1.
func TestAFleetWaitsForItsFirstNode(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	f := sbtesting.MakeFleet("late", ns, "late-pool").MinRxMbps(500).Verdicts(false).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the fleet to say it awaits nodes", func() (bool, string) {
		got := &sbv1.SpiralBenchFleet{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(f), got); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(got.Status.Conditions, sbv1.FleetConditionRoundRunning)
		return got.Status.Round == 0 && c != nil && c.Reason == sbv1.ReasonAwaitingNodes, fmt.Sprintf("%s round %d", got.Status.Phase, got.Status.Round)
	})
	poolNode(t, "late-node-1", "late-pool")
	done := (&fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"late-node-1": 900}}).runUntil(60*time.Second, "late", "round 1 finished", roundFinished(1))
	if r := rowOf(done, "late-node-1"); r.Verdict != sbv1.NodePassed {
		t.Errorf("the node that joined: %s %q", r.Verdict, r.Reason)
	}
}
