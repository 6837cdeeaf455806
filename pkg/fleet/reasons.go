package fleet

import (
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// ReasonCode is a machine-readable reason of a node verdict (docs/qualification.md has the
// table). A row lists them as "Code" or "Code:step".
type ReasonCode string

const (
	// Steps.
	StepFailed           ReasonCode = "StepFailed"           // a step ran and did not pass (a cell failed, a rule broke, a check failed)
	StepInvalid          ReasonCode = "StepInvalid"          // a step measured, but the measurement cannot be trusted, or it could not run
	StepMissing          ReasonCode = "StepMissing"          // a step has no result (its bench is gone, a Pair step found no node to run with)
	StepSkipped          ReasonCode = "StepSkipped"          // an earlier step with onFailure Stop did not pass
	StepDeadlineExceeded ReasonCode = "StepDeadlineExceeded" // a step ran past its deadlineSeconds
	NoGPU                ReasonCode = "NoGPU"                // a GPU step on a node without GPUs, and the class does not excuse it
	// References.
	NoReference        ReasonCode = "NoReference"        // the node matches no class of the catalog
	BelowReference     ReasonCode = "BelowReference"     // a figure below its class reference (copy, NCCL busbw, NIC rate)
	AboveReference     ReasonCode = "AboveReference"     // a figure above its class reference (latency, loss)
	PCIeBelowReference ReasonCode = "PCIeBelowReference" // the GPU's PCIe link trains below the class's generation or width
	PeerLinkNotNVLink  ReasonCode = "PeerLinkNotNVLink"  // a GPU pair on PCIe where the class has NVLink
	NCCLSocketFallback ReasonCode = "NCCLSocketFallback" // NCCL moved data over sockets (NET/Socket)
	WireNotCrossed     ReasonCode = "WireNotCrossed"     // the bytes did not cross the cable (PHY counters)
	// Hardware: a part's own fact is wrong, whatever the class (facts_hardware.go).
	PCIeDowntrained ReasonCode = "PCIeDowntrained" // a GPU's or NIC's PCIe link below what the part and slot allow
	NVLinkDown      ReasonCode = "NVLinkDown"      // a GPU's NVLinks not all active
	GPUMissing      ReasonCode = "GPUMissing"      // the bench saw fewer GPUs than the node's allocatable (or its request)
	NICSpeedLow     ReasonCode = "NICSpeedLow"     // a NIC's link slower than the fastest mode its port supports
	// History and fleet.
	BelowHistory ReasonCode = "BelowHistory" // worse than the node's own comparable history
	Straggler    ReasonCode = "Straggler"    // worse than the round's median by k x MAD (stragglers.failNode)
	Degrading    ReasonCode = "Degrading"    // still passing, but its trend crosses the figure's floor within baseline.trendRounds
)

// failing codes make a node Failed; invalid codes make it Invalid when nothing failed; the
// others (StepSkipped, Degrading) only explain.
var (
	failing = map[ReasonCode]bool{StepFailed: true, StepDeadlineExceeded: true, BelowReference: true, AboveReference: true,
		PCIeBelowReference: true, PeerLinkNotNVLink: true, NCCLSocketFallback: true, WireNotCrossed: true, BelowHistory: true, Straggler: true,
		PCIeDowntrained: true, NVLinkDown: true, GPUMissing: true, NICSpeedLow: true}
	invalid = map[ReasonCode]bool{StepInvalid: true, StepMissing: true, NoGPU: true, NoReference: true}
)

// AllReasonCodes lists every code, in the docs' order.
var AllReasonCodes = []ReasonCode{StepFailed, StepInvalid, StepMissing, StepSkipped, StepDeadlineExceeded, NoGPU, NoReference,
	BelowReference, AboveReference, PCIeBelowReference, PeerLinkNotNVLink, NCCLSocketFallback, WireNotCrossed,
	PCIeDowntrained, NVLinkDown, GPUMissing, NICSpeedLow, BelowHistory, Straggler, Degrading}

// Reason is one code, the step it concerns, and the numbers behind it in words.
type Reason struct {
	Code   ReasonCode
	Step   string
	Detail string
}

// Label is the code as a row lists it: "Code" or "Code:step".
func (r Reason) Label() string {
	if r.Step == "" {
		return string(r.Code)
	}
	return string(r.Code) + ":" + r.Step
}

// ParseReason reads a row's label back.
func ParseReason(label string) Reason {
	code, step, _ := strings.Cut(label, ":")
	return Reason{Code: ReasonCode(code), Step: step}
}

// VerdictOf is the one rule from reasons to a node verdict: Failed when any reason is a
// failing one, else Invalid when any says the node could not be judged, else Passed.
func VerdictOf(reasons []Reason) sbv1.NodeVerdict {
	verdict := sbv1.NodePassed
	for _, r := range reasons {
		if failing[r.Code] {
			return sbv1.NodeFailed
		}
		if invalid[r.Code] {
			verdict = sbv1.NodeInvalid
		}
	}
	return verdict
}

// Labels are the reasons as a row lists them, at most max (the API's bound), without repeats.
func Labels(reasons []Reason, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range reasons {
		l := r.Label()
		if len(l) > 48 {
			l = l[:48]
		}
		if seen[l] || len(out) >= max {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	return out
}
