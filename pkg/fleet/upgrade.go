package fleet

import "sort"

// The NVIDIA GPU Operator moves a node through a driver upgrade with the label
// nvidia.com/gpu-driver-upgrade-state, the Network Operator through
// nvidia.com/ofed-driver-upgrade-state (NVIDIA/k8s-operator-libs, pkg/upgrade, consts.go).
const (
	LabelGPUUpgradeState  = "nvidia.com/gpu-driver-upgrade-state"
	LabelOFEDUpgradeState = "nvidia.com/ofed-driver-upgrade-state"

	UpgradeStateUnknown            = ""
	UpgradeStateRequired           = "upgrade-required"
	UpgradeStateCordonRequired     = "cordon-required"
	UpgradeStateWaitForJobs        = "wait-for-jobs-required"
	UpgradeStatePodDeletion        = "pod-deletion-required"
	UpgradeStateDrainRequired      = "drain-required"
	UpgradeStatePodRestart         = "pod-restart-required"
	UpgradeStateValidationRequired = "validation-required"
	UpgradeStateUncordonRequired   = "uncordon-required"
	UpgradeStateDone               = "upgrade-done"
	UpgradeStateFailed             = "upgrade-failed"
)

// GateTaint values: the taint spiralbench.io/upgrade-gate holds a node out of service from
// the start of its upgrade until its bench after the upgrade passes.
const (
	GatePending = "Pending" // upgrading, or benching after the upgrade
	GateFailed  = "Failed"  // the upgrade failed, or the bench after it did
)

// GateAction is what the fleet does for a node given its upgrade state and gate taint.
type GateAction int

const (
	// GateNone: nothing to do (no upgrade under way, or nothing changed).
	GateNone GateAction = iota
	// GateTaint: an upgrade started; taint the node (Pending) before the upgrade controller uncordons it.
	GateTaint
	// GateBench: the upgrade is done and the node is still gated: bench it.
	GateBench
	// GateHoldFailed: the upgrade itself failed: keep the taint, value Failed, no bench.
	GateHoldFailed
)

// inProgress are the states between the start of an upgrade and its end.
var inProgress = map[string]bool{
	UpgradeStateRequired: true, UpgradeStateCordonRequired: true, UpgradeStateWaitForJobs: true,
	UpgradeStatePodDeletion: true, UpgradeStateDrainRequired: true, UpgradeStatePodRestart: true,
	UpgradeStateValidationRequired: true, UpgradeStateUncordonRequired: true,
}

// InProgress says whether the upgrade state is between upgrade-required and upgrade-done.
func InProgress(state string) bool { return inProgress[state] }

// Gate decides the action for one upgrade-state label value and the node's current gate
// taint value ("" when untainted). The taint is the gate's memory: it lives on the node, so a
// restarted manager resumes where it stopped. A node that was never seen upgrading (no
// taint) and already says upgrade-done is not benched: that is every node after its last
// upgrade, not a fresh upgrade.
func Gate(state, taint string) GateAction {
	switch {
	case InProgress(state):
		if taint != GatePending {
			// A new upgrade (or one that restarts after a failure) opens the gate again.
			return GateTaint
		}
	case state == UpgradeStateDone:
		if taint == GatePending {
			return GateBench
		}
	case state == UpgradeStateFailed:
		if taint != GateFailed {
			return GateHoldFailed
		}
	}
	return GateNone
}

// UpgradeRunsKept is how many driver upgrades of a node keep their benches and check pods:
// the last ones, the current included. Older ones are deleted when a gate ends; their
// results stay in the bucket and in the node's history.
const UpgradeRunsKept = 3

// OldGates are the gate ids beyond the newest keep, oldest last. A gate id is the time the
// gate opened in nanoseconds (decimal), so a longer id is a later one.
func OldGates(ids []string, keep int) []string {
	sorted := append([]string(nil), ids...)
	sort.Slice(sorted, func(i, j int) bool {
		if len(sorted[i]) != len(sorted[j]) {
			return len(sorted[i]) > len(sorted[j])
		}
		return sorted[i] > sorted[j]
	})
	if len(sorted) <= keep {
		return nil
	}
	return sorted[keep:]
}
