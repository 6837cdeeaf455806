package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Scheduling, maxParallel, idle detection, verdict labels: every node gets exactly one
// bench and one verdict, never more than maxParallel nodes at once, and a node whose GPU
// another workload holds waits until it is free.
func TestFleetBenchesEveryIdleNodeOnceWithinMaxParallel(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	nodes := []string{"fs-a", "fs-b", "fs-c", "fs-d", "fs-e"}
	for _, n := range nodes {
		poolNode(t, n, "sched")
	}
	busy := gpuPod(t, ns, "training", "fs-c")
	created := watchCreatedBenches(t, ns)
	f := sbtesting.MakeFleet("sched", ns, "sched").MaxParallel(2).MinRxMbps(900).Verdicts(false).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	k.runUntil(60*time.Second, "sched", "all idle nodes decided, fs-c busy", func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Counts.Passed == 4 && rowOf(f, "fs-c").Verdict == sbv1.NodePending
	})
	cur := &sbv1.SpiralBenchFleet{}
	_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(f), cur)
	if r := rowOf(cur, "fs-c"); !strings.Contains(r.Reason, "training uses nvidia.com/gpu") || cur.Status.Counts.Busy != 1 {
		t.Fatalf("busy node's row %+v, busy count %d", r, cur.Status.Counts.Busy)
	}
	if err := k8sClient.Delete(context.Background(), busy); err != nil {
		t.Fatal(err)
	}
	done := k.runUntil(60*time.Second, "sched", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != 5 || done.Status.Progress != "5/5" {
		t.Fatalf("counts %+v progress %s", done.Status.Counts, done.Status.Progress)
	}
	if k.maxLiveBenches > 2 {
		t.Errorf("%d benches ran at once, maxParallel is 2", k.maxLiveBenches)
	}
	if len(k.overlaps) > 0 {
		t.Errorf("overlapping benches on a node: %v", k.overlaps)
	}
	benched := map[string]int{}
	for _, sb := range fleetBenches(t, ns, "sched") {
		for _, n := range benchNodesOf(&sb) {
			benched[n]++
		}
	}
	for name, finalizers := range created.finalizers() {
		if len(finalizers) != 1 || finalizers[0] != "spiralbench.io/release" {
			t.Errorf("bench %s was created with finalizers %v: the bench controller then patches its own in", name, finalizers)
		}
	}
	for _, n := range nodes {
		if benched[n] != 1 {
			t.Errorf("node %s benched %d times", n, benched[n])
		}
		node := getNode(t, n)
		row := rowOf(done, n)
		if node.Labels[sbv1.LabelVerdict] != "Passed" || node.Labels[sbv1.LabelVerdictTime] == "" ||
			node.Annotations[sbv1.AnnotationVerdictRun] != ns+"/"+row.Bench+"/"+row.RunID {
			t.Errorf("node %s labels %v annotations %v row %+v", n, node.Labels, node.Annotations, row)
		}
		if row.Value == nil || *row.Value != 1000 || row.FleetDeltaMilliPercent != nil { // a delta is written only for a straggler
			t.Errorf("row %+v", row)
		}
	}
	// A second round benches every node again: no verdict carries over from round 1's benches.
	requestRound(t, ns, "sched", "2")
	again := k.runUntil(60*time.Second, "sched", "round 2 finished", roundFinished(2))
	for _, row := range rowsOf(again) {
		if row.Verdict != sbv1.NodePassed || !strings.HasPrefix(row.Bench, "sched-r2-") {
			t.Errorf("round 2 row %+v: want Passed by a round 2 bench", row)
		}
	}
}

// Ring pairing and finding the bad node: the pair holding the slow node fails; each of its
// two nodes is benched again with a partner that passed, so only the slow node is Failed
// (and tainted). A later round with the node repaired passes it and lifts the taint.
func TestFleetRingFindsTheBadNodeOfAFailedPair(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	nodes := []string{"fr-a", "fr-b", "fr-c", "fr-d", "fr-e", "fr-f"}
	for _, n := range nodes {
		poolNode(t, n, "ring")
	}
	f := sbtesting.MakeFleet("ring", ns, "ring").Ring().MaxParallel(6).MinRxMbps(900).Verdicts(true).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"fr-d": 400}}
	done := k.runUntil(90*time.Second, "ring", "round 1 finished", roundFinished(1))
	bad := rowOf(done, "fr-d")
	if bad.Verdict != sbv1.NodeFailed || !strings.Contains(bad.Reason, "failed; with ") {
		t.Fatalf("fr-d row %+v", bad)
	}
	if done.Status.Counts.Passed != 5 || done.Status.Counts.Failed != 1 {
		t.Fatalf("counts %+v rows %+v", done.Status.Counts, rowsOf(done))
	}
	var pairPartner string
	isolates := 0
	for _, sb := range fleetBenches(t, ns, "ring") {
		ns := benchNodesOf(&sb)
		if len(ns) != 2 {
			t.Fatalf("bench %s has nodes %v, want a pair", sb.Name, ns)
		}
		if sb.Labels[sbv1.LabelFleetKind] == "isolate" {
			isolates++
		} else if ns[0] == "fr-d" {
			pairPartner = ns[1]
		} else if ns[1] == "fr-d" {
			pairPartner = ns[0]
		}
	}
	if isolates != 2 || pairPartner == "" {
		t.Fatalf("want the failed pair's two nodes isolated: %d isolate benches, pair %q", isolates, pairPartner)
	}
	if rowOf(done, bad.Partner).Verdict != sbv1.NodePassed {
		t.Fatalf("the reference partner %s should have passed", bad.Partner)
	}
	if v, ok := taintValue(getNode(t, "fr-d"), "spiralbench.io/verdict"); !ok || v != "Failed" {
		t.Fatalf("fr-d taint %q %v", v, ok)
	}
	for _, n := range nodes {
		if n == "fr-d" {
			continue
		}
		if _, ok := taintValue(getNode(t, n), "spiralbench.io/verdict"); ok {
			t.Fatalf("%s is tainted but passed", n)
		}
		if l := getNode(t, n).Labels[sbv1.LabelVerdict]; l != "Passed" {
			t.Fatalf("%s verdict label %q", n, l)
		}
	}
	// Round 2 pairs differently (rotation) and, with fr-d repaired, lifts its taint.
	k.mbps["fr-d"] = 1000
	requestRound(t, ns, "ring", "again")
	done = k.runUntil(90*time.Second, "ring", "round 2 finished", roundFinished(2))
	if done.Status.Counts.Passed != 6 {
		t.Fatalf("round 2 counts %+v", done.Status.Counts)
	}
	for _, r := range rowsOf(done) {
		if !strings.HasPrefix(r.Bench, "ring-r2-") && !strings.HasPrefix(r.Bench, "ring-i2-") {
			t.Fatalf("%s was decided by %s, not by a round 2 bench", r.Name, r.Bench)
		}
	}
	if _, ok := taintValue(getNode(t, "fr-d"), "spiralbench.io/verdict"); ok || getNode(t, "fr-d").Labels[sbv1.LabelVerdict] != "Passed" {
		t.Fatalf("fr-d still tainted or not Passed after passing: %v", getNode(t, "fr-d").Labels)
	}
	if p := rowOf(done, "fr-d").Partner; p == pairPartner || p == "" {
		t.Fatalf("round 2 paired fr-d with %q, round 1 with %s; the ring should rotate", p, pairPartner)
	}
	if r := rowOf(done, pairPartner); r.Verdict != sbv1.NodePassed {
		t.Fatalf("fr-d's round 1 partner %s should pass: %+v", pairPartner, r)
	}
}

// A node joining and one leaving mid-round, then minIntervalSeconds skipping every node
// benched less than an hour ago in the next round (started by a round request).
func TestFleetFollowsThePoolAndSkipsRecentNodes(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"fm-a", "fm-b", "fm-c"} {
		poolNode(t, n, "minint")
	}
	f := sbtesting.MakeFleet("minint", ns, "minint").MinIntervalSeconds(3600).MaxParallel(1).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	k.runUntil(60*time.Second, "minint", "fm-a passed", func(f *sbv1.SpiralBenchFleet) bool {
		return rowOf(f, "fm-a").Verdict == sbv1.NodePassed
	})
	poolNode(t, "fm-new", "minint")
	gone := getNode(t, "fm-c")
	gone.Labels["pool"] = "elsewhere"
	if err := k8sClient.Update(context.Background(), gone); err != nil {
		t.Fatal(err)
	}
	done := k.runUntil(60*time.Second, "minint", "round 1 finished", roundFinished(1))
	if r := rowOf(done, "fm-c"); r.Verdict != sbv1.NodeLeft || !strings.Contains(r.Reason, "left the pool") {
		t.Fatalf("fm-c row %+v", r)
	}
	if r := rowOf(done, "fm-new"); r.Verdict != sbv1.NodePassed {
		t.Fatalf("fm-new row %+v", r)
	}
	if c := done.Status.Counts; c.Joined != 1 || c.Left != 1 || c.Passed != 3 || c.Nodes != 3 {
		t.Fatalf("counts %+v", c)
	}
	requestRound(t, ns, "minint", "2")
	done = k.runUntil(60*time.Second, "minint", "round 2 finished", roundFinished(2))
	for _, n := range []string{"fm-a", "fm-b", "fm-new"} {
		if r := rowOf(done, n); r.Verdict != sbv1.NodeSkipped || !strings.Contains(r.Reason, "minIntervalSeconds is 3600") {
			t.Fatalf("%s row %+v", n, r)
		}
	}
	if r := rowOf(done, "fm-c"); r.Name != "" {
		t.Fatalf("the departed node's row should go at the next round: %+v", r)
	}
	for _, sb := range fleetBenches(t, ns, "minint") {
		if sb.Labels[sbv1.LabelFleetRound] == "2" {
			t.Fatalf("round 2 benched %v", benchNodesOf(&sb))
		}
	}
}

// Stragglers: a node well below the pool's median flags, a little below does not.
func TestFleetFlagsStragglersAgainstTheMedian(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	speeds := map[string]int64{"fo-a": 1000, "fo-b": 1010, "fo-c": 990, "fo-d": 1005, "fo-e": 995, "fo-f": 980, "fo-slow": 700}
	for n := range speeds {
		poolNode(t, n, "outlier")
	}
	f := sbtesting.MakeFleet("outlier", ns, "outlier").MinRxMbps(500).Stragglers(3000, true).Verdicts(false).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	done := (&fleetKubelet{t: t, ns: ns, mbps: speeds}).runUntil(60*time.Second, "outlier", "round finished", roundFinished(1))
	slow := rowOf(done, "fo-slow")
	if !slow.Straggler || slow.Verdict != sbv1.NodeFailed || !strings.Contains(slow.Reason, "straggler: 700 vs median") {
		t.Fatalf("fo-slow %+v", slow)
	}
	if slow.FleetDeltaMilliPercent == nil || *slow.FleetDeltaMilliPercent > -29000 {
		t.Fatalf("fo-slow fleet delta %v", slow.FleetDeltaMilliPercent)
	}
	if done.Status.Counts.Stragglers != 1 || done.Status.Median == nil || *done.Status.Median != 995 {
		t.Fatalf("counts %+v median %v", done.Status.Counts, done.Status.Median)
	}
	// The status names the straggler and the failing node (bounded lists) and counts the code.
	if s := done.Status.Stragglers; len(s) != 1 || s[0].Name != "fo-slow" || done.Status.StragglersOmitted != 0 {
		t.Fatalf("status.stragglers %+v", s)
	}
	if f := done.Status.Failing; len(f) != 1 || f[0].Name != "fo-slow" || f[0].Verdict != sbv1.NodeFailed || done.Status.Reasons["Straggler"] != 1 {
		t.Fatalf("status.failing %+v reasons %v", f, done.Status.Reasons)
	}
	if r := rowOf(done, "fo-f"); r.Straggler || r.Verdict != sbv1.NodePassed {
		t.Fatalf("fo-f (2%% below) flagged: %+v", r)
	}
	if l := getNode(t, "fo-slow").Labels[sbv1.LabelVerdict]; l != "Failed" {
		t.Fatalf("straggler with failNode: label %q", l)
	}
}

// The upgrade gate, driven through the GPU Operator's real label sequence by the test (in
// place of the upgrade controller): taint at the start, bench at upgrade-done, release on a
// pass, hold on a failed bench and on a failed upgrade.
func TestFleetUpgradeGateHoldsNodesUntilTheirBenchPasses(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"fu-good", "fu-bad", "fu-broken"} {
		poolNode(t, n, "upgrade")
	}
	f := sbtesting.MakeFleet("upgrade", ns, "upgrade").MinRxMbps(900).UpgradeGate(sbv1.UpgradeDriverGPU).Verdicts(false).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}}
	k.runUntil(60*time.Second, "upgrade", "initial round finished", roundFinished(1))
	before := len(fleetBenches(t, ns, "upgrade"))

	setState := func(node, state string) { setUpgradeState(t, node, state) }
	waitTaint := func(node, want string) { k.waitGateTaint(30*time.Second, node, want) }
	k.mbps["fu-bad"] = 300 // the new driver made this node slow
	for _, n := range []string{"fu-good", "fu-bad", "fu-broken"} {
		setState(n, "upgrade-required")
		waitTaint(n, "Pending")
	}
	for _, state := range []string{"cordon-required", "wait-for-jobs-required", "drain-required", "pod-restart-required", "validation-required", "uncordon-required"} {
		for _, n := range []string{"fu-good", "fu-bad"} {
			setState(n, state)
		}
		time.Sleep(200 * time.Millisecond)
		if got := len(fleetBenches(t, ns, "upgrade")); got != before {
			t.Fatalf("a bench started at %s, before upgrade-done", state)
		}
		if _, ok := taintValue(getNode(t, "fu-good"), "spiralbench.io/upgrade-gate"); !ok {
			t.Fatalf("gate taint lost at %s", state)
		}
	}
	setState("fu-broken", "upgrade-failed")
	waitTaint("fu-broken", "Failed")
	setState("fu-good", "upgrade-done")
	setState("fu-bad", "upgrade-done")
	waitTaint("fu-good", "")
	waitTaint("fu-bad", "Failed")
	// The node's taint is written within the step, its result at the step's end.
	cur := k.runUntil(30*time.Second, "upgrade", "the gate's rows", func(f *sbv1.SpiralBenchFleet) bool {
		return rowOf(f, "fu-good").Upgrade == sbv1.GateReleased && rowOf(f, "fu-bad").Upgrade == sbv1.GateHeld && f.Status.Counts.Held == 2
	})
	if r := rowOf(cur, "fu-good"); r.Upgrade != sbv1.GateReleased || r.Verdict != sbv1.NodePassed || !strings.HasPrefix(r.Bench, "upgrade-u0-") {
		t.Fatalf("fu-good row %+v", r)
	}
	if r := rowOf(cur, "fu-bad"); r.Upgrade != sbv1.GateHeld || r.Verdict != sbv1.NodeFailed || !strings.Contains(r.Reason, "after the driver upgrade") {
		t.Fatalf("fu-bad row %+v", r)
	}
	if r := rowOf(cur, "fu-broken"); r.Upgrade != sbv1.GateHeld {
		t.Fatalf("fu-broken row %+v", r)
	}
	if cur.Status.Counts.Held != 2 {
		t.Fatalf("held %d", cur.Status.Counts.Held)
	}
	upgradeBenches := 0
	for _, sb := range fleetBenches(t, ns, "upgrade") {
		if sb.Labels[sbv1.LabelFleetKind] == "upgrade" {
			upgradeBenches++
			if n := benchNodesOf(&sb)[0]; n == "fu-broken" {
				t.Fatalf("a failed upgrade was benched")
			}
			if tol := sb.Spec.Topology.Placement.Tolerations; !tolerates(tol, "spiralbench.io/upgrade-gate") {
				t.Fatalf("upgrade bench does not tolerate the gate taint: %+v", tol)
			}
		}
	}
	if upgradeBenches != 2 {
		t.Fatalf("%d upgrade benches, want 2", upgradeBenches)
	}
	// A held node stays held at upgrade-done; a new upgrade that passes releases it.
	k.mbps["fu-bad"] = 1000
	for _, state := range []string{"upgrade-required", "drain-required", "upgrade-done"} {
		setState("fu-bad", state)
		if state == "upgrade-required" {
			waitTaint("fu-bad", "Pending")
		}
	}
	waitTaint("fu-bad", "")
}

func tolerates(tols []corev1.Toleration, key string) bool {
	for _, t := range tols {
		if t.Key == key {
			return true
		}
	}
	return false
}

// Admission: what a fleet cannot mean is refused with a message saying what to change.
func TestFleetAdmissionRefusesWhatTheFleetOwns(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	cases := map[string]struct {
		mutate func(f *sbv1.SpiralBenchFleet)
		want   string
	}{
		"placement": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Template.Spec.Topology.Placement = &sbv1.Placement{NodeName: "x"}
		}, "the fleet places each bench"},
		"crossnode": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Template.Spec.Topology.Mode = sbv1.TopologyCrossNode }, "set spec.pairing: Ring"},
		"raw ring": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Pairing = sbv1.PairingRing
			f.Spec.Template.Spec.Transport = sbv1.TransportRawEthernet
			f.Spec.Template.Spec.Matrix.Pairs = nil
		}, "RawEthernet runs in one pod on one node"},
		"long name":    {func(f *sbv1.SpiralBenchFleet) { f.Name = "a-fleet-name-longer-than-24" }, "at most 24 characters"},
		"bad schedule": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Schedule = "every day" }, "spec.schedule"},
		"template ttl": {func(f *sbv1.SpiralBenchFleet) {
			v := int32(5)
			f.Spec.Template.Spec.TTLSecondsAfterFinished = &v
		}, "remove template.spec.ttlSecondsAfterFinished"},
		"template CEL still applies": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Template.Spec.Matrix.Queues = []sbv1.QueueCell{{TX: 1, RX: 1}} }, "matrix.queues"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := sbtesting.MakeFleet("adm", ns, "none").Obj()
			c.mutate(f)
			err := k8sClient.Create(context.Background(), f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want refusal containing %q, got %v", c.want, err)
			}
		})
	}
	ok := sbtesting.MakeFleet("adm-ok", ns, "none").Ring().Schedule("0 3 * * 0").Obj()
	if err := k8sClient.Create(context.Background(), ok); err != nil {
		t.Fatalf("a valid fleet was refused: %v", err)
	}
	eventually(t, 10*time.Second, "awaiting schedule", func() (bool, string) {
		cur := &sbv1.SpiralBenchFleet{}
		_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(ok), cur)
		return cur.Status.Phase == sbv1.FleetPending && cur.Status.NextRoundTime != nil && cur.Status.NextRoundTime.Weekday() == time.Sunday,
			fmt.Sprintf("%+v", cur.Status)
	})
}

// The fleet samples (a template fleet, a Standard suite) are admitted as written.
func TestFleetSampleIsAdmitted(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, name := range []string{"gpu-pool.yaml", "standard-suite.yaml"} {
		m := readManifest(t, filepath.Join(repoRoot, "config", "samples", "fleet", name))
		m.obj.SetNamespace(ns)
		if err := k8sClient.Create(context.Background(), m.obj); err != nil {
			t.Fatalf("%s: %v", m.path, err)
		}
	}
}

// An odd pool: the node the ring leaves out is benched with a partner that passed. When no
// node passes at all, nothing can tell which node of a pair is at fault: the pair's nodes keep
// the pair's verdict and the odd one is Invalid, and the round still ends.
func TestFleetRingOddNodeAndNoReference(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"fo3-a", "fo3-b", "fo3-c"} {
		poolNode(t, n, "odd")
	}
	f := sbtesting.MakeFleet("odd", ns, "odd").Ring().MinRxMbps(900).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}}
	done := k.runUntil(60*time.Second, "odd", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != 3 {
		t.Fatalf("rows %+v", rowsOf(done))
	}
	isolated := 0
	for _, r := range rowsOf(done) {
		if strings.HasPrefix(r.Bench, "odd-i1-") {
			isolated++
			if !strings.Contains(r.Reason, "no partner this round; with ") {
				t.Fatalf("odd node row %+v", r)
			}
		}
	}
	if isolated != 1 {
		t.Fatalf("%d nodes benched with a reference, want the odd one: %+v", isolated, rowsOf(done))
	}

	for _, n := range []string{"fo3-a", "fo3-b", "fo3-c"} {
		k.mbps[n] = 100 // now every node is slow
	}
	requestRound(t, ns, "odd", "2")
	done = k.runUntil(60*time.Second, "odd", "round 2 finished", roundFinished(2))
	var failed, invalid int
	for _, r := range rowsOf(done) {
		switch {
		case r.Verdict == sbv1.NodeFailed && strings.Contains(r.Reason, "no node passed to tell which is at fault"):
			failed++
		case r.Verdict == sbv1.NodeInvalid && strings.Contains(r.Reason, "no node passed this round"):
			invalid++
		default:
			t.Fatalf("round 2 row %+v", r)
		}
	}
	if failed != 2 || invalid != 1 {
		t.Fatalf("failed %d invalid %d", failed, invalid)
	}
}
