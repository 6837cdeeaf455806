package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The class-wide test of a driver upgrade, through the GPU Operator's label sequence and GPU
// Feature Discovery's driver label, both written by the test: six nodes stay on the old
// driver, four move to the new one; the first three to pass after the upgrade are the
// canaries. A driver that makes the class 5 % slower holds the fourth node (its own bench
// passed) with the figure named; a driver that changes nothing releases it as equivalent.
func TestFleetCanaryCohortHoldsAClassWideRegression(t *testing.T) {
	requireEnv(t)
	for _, c := range []struct {
		name     string
		canaries []int64 // the upgraded nodes' speeds on the new driver, in upgrade order
		worse    bool
	}{
		{"worse", []int64{950, 955, 948, 952}, true},
		{"same", []int64{1003, 997, 1001, 999}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := newNamespace(t)
			pool := "cohort-" + c.name
			speeds := map[string]int64{}
			old := []int64{1000, 1010, 990, 1005, 995, 1002}
			var nodes, upgraded []string
			for i, s := range old {
				n := fmt.Sprintf("fc%s-o%d", c.name[:1], i)
				speeds[n] = s
				nodes = append(nodes, n)
			}
			for i := range c.canaries {
				n := fmt.Sprintf("fc%s-n%d", c.name[:1], i)
				speeds[n] = 1000
				nodes = append(nodes, n)
				upgraded = append(upgraded, n)
			}
			for _, n := range nodes {
				poolNode(t, n, pool)
				setDriverVersion(t, n, "570.1")
			}
			f := sbtesting.MakeFleet(pool, ns, pool).MinRxMbps(900).UpgradeGate(sbv1.UpgradeDriverGPU).Verdicts(false).Obj()
			f.Spec.UpgradeGate.Canaries = 3
			if err := k8sClient.Create(context.Background(), f); err != nil {
				t.Fatal(err)
			}
			k := &fleetKubelet{t: t, ns: ns, mbps: speeds}
			k.runUntil(60*time.Second, pool, "initial round finished", roundFinished(1))

			// One node at a time, so the canaries are the first three.
			for i, n := range upgraded {
				setUpgradeState(t, n, "upgrade-required")
				k.waitGateTaint(30*time.Second, n, "Pending")
				setDriverVersion(t, n, "580.2")
				k.mbps[n] = c.canaries[i]
				setUpgradeState(t, n, "upgrade-done")
				if i < 3 {
					k.waitGateTaint(30*time.Second, n, "")
				}
			}
			last := upgraded[3]
			cur := k.runUntil(30*time.Second, pool, "the fourth node decided", func(f *sbv1.SpiralBenchFleet) bool {
				r := rowOf(f, last)
				return r.Verdict == sbv1.NodePassed && (r.Upgrade == sbv1.GateHeld || r.Upgrade == sbv1.GateReleased) && len(f.Status.UpgradeCohorts) == 1
			})
			cohort := cur.Status.UpgradeCohorts[0]
			row := rowOf(cur, last)
			if c.worse {
				if cohort.Decision != "Worse" || cohort.Driver != "580.2" || cohort.Figure != "RxMbps" || cohort.Canaries != 3 || cohort.Reference != 6 ||
					cohort.DifferenceMilliPercent > -4000 || !strings.Contains(cohort.Message, "RxMbps worse by") {
					t.Fatalf("cohort %+v", cohort)
				}
				if row.Upgrade != sbv1.GateHeld || !strings.Contains(row.Reason, "canary cohort") {
					t.Fatalf("the fourth node is not held by its cohort: %+v", row)
				}
				if v, _ := taintValue(getNode(t, last), "spiralbench.io/upgrade-gate"); v != "Pending" {
					t.Fatalf("the held node's gate taint is %q, want Pending", v)
				}
				return
			}
			if cohort.Decision != "Equivalent" || cohort.Canaries != 3 || !strings.Contains(cohort.Message, "equivalent within 3%") {
				t.Fatalf("cohort %+v", cohort)
			}
			k.waitGateTaint(30*time.Second, last, "")
		})
	}
}

// setDriverVersion writes GPU Feature Discovery's driver label, as GFD would after an upgrade.
func setDriverVersion(t *testing.T, node, version string) {
	t.Helper()
	n := getNode(t, node)
	n.Labels["nvidia.com/cuda.driver-version.full"] = version
	if err := k8sClient.Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}
