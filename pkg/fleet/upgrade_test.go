package fleet

import (
	"strings"
	"testing"
)

// The GPU Operator's sequence for one node, with the gate's action at each step.
func TestGateFollowsTheUpgradeSequence(t *testing.T) {
	taint := ""
	steps := []struct {
		state string
		want  GateAction
	}{
		{"", GateNone},
		{UpgradeStateDone, GateNone}, // steady state after an earlier upgrade: no bench
		{UpgradeStateRequired, GateTaint},
		{UpgradeStateCordonRequired, GateNone},
		{UpgradeStateWaitForJobs, GateNone},
		{UpgradeStateDrainRequired, GateNone},
		{UpgradeStatePodRestart, GateNone},
		{UpgradeStateValidationRequired, GateNone},
		{UpgradeStateUncordonRequired, GateNone},
		{UpgradeStateDone, GateBench},
	}
	for _, s := range steps {
		got := Gate(s.state, taint)
		if got != s.want {
			t.Fatalf("state %q taint %q: action %v, want %v", s.state, taint, got, s.want)
		}
		if got == GateTaint {
			taint = GatePending
		}
	}
	// The bench failed: the taint says Failed; upgrade-done stays quiet until a new upgrade.
	if Gate(UpgradeStateDone, GateFailed) != GateNone {
		t.Fatal("a held node must not be re-benched without a new upgrade")
	}
	if Gate(UpgradeStateRequired, GateFailed) != GateTaint {
		t.Fatal("a new upgrade of a held node opens the gate again")
	}
	if Gate(UpgradeStateFailed, GatePending) != GateHoldFailed || Gate(UpgradeStateFailed, GateFailed) != GateNone {
		t.Fatal("a failed upgrade holds the node once")
	}
	if !InProgress(UpgradeStateDrainRequired) || InProgress(UpgradeStateDone) || InProgress("") {
		t.Fatal("InProgress")
	}
}

// The newest gates are kept, by the time they opened (a longer id is later, whatever its
// digits), and the order the ids come in does not matter.
func TestOldGatesKeepsTheNewest(t *testing.T) {
	ids := []string{"1700000000000000003", "999999999999999999", "1700000000000000001", "1700000000000000002", "1800000000000000000"}
	got := strings.Join(OldGates(ids, 3), ",")
	if want := "1700000000000000001,999999999999999999"; got != want {
		t.Errorf("old gates %s, want %s", got, want)
	}
	if old := OldGates(ids[:3], 3); len(old) != 0 {
		t.Errorf("three gates, three kept: %v", old)
	}
	if old := OldGates(nil, UpgradeRunsKept); len(old) != 0 {
		t.Errorf("no gates: %v", old)
	}
	if ids[0] != "1700000000000000003" {
		t.Error("the caller's slice was reordered")
	}
}
