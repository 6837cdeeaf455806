package fleet

import "testing"

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
