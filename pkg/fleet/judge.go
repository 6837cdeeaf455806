package fleet

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// StepState is how one step of a node's suite ended.
type StepState string

const (
	StepPassedState           StepState = "Passed"
	StepFailedState           StepState = "Failed"
	StepInvalidState          StepState = "Invalid"
	StepDeadlineExceededState StepState = "DeadlineExceeded"
	StepSkippedState          StepState = "Skipped"
	StepNoGPUState            StepState = "NoGPU"
	// StepMissingState: the step has no result to judge.
	StepMissingState StepState = "Missing"
)

// StepOutcome is a finished step: its state, the words behind it, and what it observed.
type StepOutcome struct {
	Step   string
	State  StepState
	Reason string
	// Bench is the SpiralBench (or check pod) the outcome came from; "" when none ran.
	Bench string
	Observation
}

// Ended says whether the state ends the step (Missing and "" do not).
func (s StepState) Ended() bool { return s != "" && s != StepMissingState }

// Passed says whether the step passed (what onFailure Stop looks at). NoGPU on a class that
// excuses it is judged later; for the order of steps it does not stop the suite.
func (s StepState) Passed() bool { return s == StepPassedState || s == StepNoGPUState }

// BenchOutcome reads a finished bench's outcome for its nodes from its Passed condition,
// which acceptance.Decide wrote, so the node and the bench agree: Passed True passes the step
// (with allowFailedCells too: the reason says so); cells that failed or a broken rule fail
// it; cells that measured but cannot be trusted make it Invalid, as does a bench that could
// not run at all.
func BenchOutcome(sb *sbv1.SpiralBench) (StepState, string) {
	if sb.Status.Phase == sbv1.PhaseFailed {
		return StepInvalidState, "bench could not run: " + conditionMessage(sb, sbv1.ConditionFailed)
	}
	p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	switch {
	case p == nil:
		return StepInvalidState, "bench has no verdict"
	case p.Status == metav1.ConditionTrue:
		if p.Reason == sbv1.ReasonFailedCellsAllowed {
			return StepPassedState, p.Message
		}
		return StepPassedState, ""
	case p.Reason == sbv1.ReasonCellsInvalid:
		return StepInvalidState, p.Message
	}
	return StepFailedState, p.Message
}

func conditionMessage(sb *sbv1.SpiralBench, t string) string {
	if c := meta.FindStatusCondition(sb.Status.Conditions, t); c != nil {
		return c.Message
	}
	return ""
}

// Input is everything a node's verdict depends on.
type Input struct {
	// Steps are the suite's steps in order, each with its outcome; a step without one is Missing.
	Steps []StepOutcome
	// Catalog judges the figures against the node's class; nil judges no references.
	Catalog *Catalog
	// Class forces a class by name instead of matching the facts.
	Class string
	// NodeFacts are facts from the node object (its allocatable GPUs), filling what no step reported.
	NodeFacts Facts
	// History is the comparison with the node's own history; nil when none was made.
	History *Regression
	// HistoryFigure names the figure History compared; HistoryDetail says it in numbers.
	HistoryFigure, HistoryDetail string
	// Prior are the reasons of the node's judgement earlier in the round, when the round's end
	// judges it again (a straggler is known only then). Only their codes count.
	Prior []Reason
	// Straggler: the round flagged the node and stragglers.failNode fails it.
	Straggler       bool
	StragglerDetail string
	// Degrading: the node's trend crosses the figure's floor soon (baseline.trendRounds); it
	// explains, never fails.
	Degrading       bool
	DegradingDetail string
}

// Judgement is a node's verdict with its reasons and the class it was judged as.
type Judgement struct {
	Verdict sbv1.NodeVerdict
	Reasons []Reason
	Class   string
	// Facts are what the node reported, merged over its steps.
	Facts Facts
	// Notes are what passed steps said (allowFailedCells naming the cells it let pass).
	Notes []string
	// Steps record each of Input.Steps as judged here (step_records.go); none for a
	// judgement of prior reasons alone.
	Steps []sbv1.FleetStepRecord
}

// Message joins the reasons' details for the row's reason, first the failing ones.
func (j Judgement) Message() string {
	var parts []string
	for _, pass := range []bool{true, false} {
		for _, r := range j.Reasons {
			if failing[r.Code] == pass && r.Detail != "" {
				parts = append(parts, r.Detail)
			}
		}
	}
	return strings.Join(append(parts, j.Notes...), "; ")
}

// Judge is the one decision of a node's verdict: Passed only when every step ran and passed,
// every referenced figure holds (when a catalog is given: and the node matched a class), the
// node did not regress against its history and, with stragglers.failNode, did not straggle.
func Judge(in Input) Judgement {
	j := Judgement{Reasons: slices.Clone(in.Prior)}
	facts := Facts{}
	for _, s := range in.Steps {
		facts = facts.Merge(s.Facts)
	}
	j.Facts = facts.Merge(in.NodeFacts)
	var class *Class
	if in.Catalog != nil {
		if in.Class != "" {
			class = in.Catalog.Class(in.Class)
		} else {
			class = in.Catalog.MatchClass(j.Facts)
		}
		if class == nil && in.Class == "" && in.Catalog.Derived != nil {
			var notes []string
			var why string
			if class, notes, why = derivedClass(in.Catalog.Derived, in.Steps); class == nil {
				j.Reasons = append(j.Reasons, Reason{Code: NoReference, Detail: "no class matches " + j.Facts.String() +
					", and no expectation can be derived from its hardware: " + why})
			}
			j.Notes = append(j.Notes, notes...)
		}
		switch {
		case class != nil:
			j.Class = class.Name
		case in.Class != "":
			j.Reasons = append(j.Reasons, Reason{Code: NoReference, Detail: "class " + in.Class + " is not in the catalog"})
		case in.Catalog.Derived == nil:
			j.Reasons = append(j.Reasons, Reason{Code: NoReference, Detail: "no class matches " + j.Facts.String()})
		}
	}
	for _, s := range in.Steps {
		j.Reasons = append(j.Reasons, stepReasons(s, class)...)
		if s.State == StepPassedState && s.Reason != "" {
			note := s.Reason
			if s.Step != "" {
				note = s.Step + ": " + note
			}
			j.Notes = append(j.Notes, note)
		}
	}
	if class != nil {
		j.Reasons = append(j.Reasons, referenceReasons(in.Steps, class, j.Facts)...)
	}
	j.Reasons = append(j.Reasons, hardwareReasons(j.Facts.Hardware, in.NodeFacts.GPUCount, class != nil && class.Expect.NVLink)...)
	if h := in.History; h != nil && h.Regressed {
		detail := in.HistoryDetail
		if detail == "" {
			detail = fmt.Sprintf("regressed: %s vs its history %.0f (std %.0f, threshold %.0f)", in.HistoryFigure, h.Mean, h.Std, h.Threshold)
		}
		j.Reasons = append(j.Reasons, Reason{Code: BelowHistory, Detail: detail})
	}
	if in.Straggler {
		j.Reasons = append(j.Reasons, Reason{Code: Straggler, Detail: in.StragglerDetail})
	}
	if in.Degrading {
		j.Reasons = append(j.Reasons, Reason{Code: Degrading, Detail: in.DegradingDetail})
	}
	j.Verdict = VerdictOf(j.Reasons)
	j.Steps = stepRecords(in, class, j.Reasons)
	return j
}

func stepReasons(s StepOutcome, class *Class) []Reason {
	named := func(code ReasonCode, detail string) []Reason {
		if s.Step != "" && detail != "" {
			detail = s.Step + ": " + detail
		}
		return []Reason{{Code: code, Step: s.Step, Detail: detail}}
	}
	switch s.State {
	case StepPassedState:
		return nil
	case StepFailedState:
		return named(StepFailed, s.Reason)
	case StepInvalidState:
		return named(StepInvalid, s.Reason)
	case StepDeadlineExceededState:
		return named(StepDeadlineExceeded, s.Reason)
	case StepSkippedState:
		return named(StepSkipped, s.Reason)
	case StepNoGPUState:
		if class != nil && class.IsNotApplicable(s.Step) {
			return nil
		}
		return named(NoGPU, "no GPU on this node")
	}
	if s.Reason != "" { // why it has none (a Pair step that found no node to run with)
		return named(StepMissing, s.Reason)
	}
	return named(StepMissing, "no result")
}

// referenceReasons compares each passed step's figures and links with the class.
func referenceReasons(steps []StepOutcome, class *Class, facts Facts) []Reason {
	var out []Reason
	byStep := map[string]*StepOutcome{}
	for i := range steps {
		byStep[steps[i].Step] = &steps[i]
	}
	for _, ref := range class.References {
		s := byStep[ref.Step]
		if s == nil || s.State != StepPassedState {
			continue // a step that did not pass already has its reason; an absent step is not in this suite
		}
		if ref.Relative() {
			out = append(out, relativeReasons(ref, s, class)...)
			continue
		}
		v, ok := s.Figures[ref.Figure]
		if !ok {
			out = append(out, Reason{Code: StepMissing, Step: ref.Step,
				Detail: fmt.Sprintf("%s: no %s to compare with its reference %.0f", ref.Step, ref.Figure, ref.Expected)})
			continue
		}
		if ref.Holds(v) {
			continue
		}
		code := BelowReference
		if !figure.HigherIsBetter(ref.Figure) {
			code = AboveReference
		}
		out = append(out, Reason{Code: code, Step: ref.Step,
			Detail: fmt.Sprintf("%s: %s %.0f %s vs reference %.0f +-%.0f%% (class %s)", ref.Step, ref.Figure, v, figure.UnitOf(ref.Figure), ref.Expected, ref.TolerancePercent, class.Name)})
	}
	e := class.Expect
	if e.PCIeGeneration > 0 && facts.PCIeGen > 0 && (facts.PCIeGen < e.PCIeGeneration || facts.PCIeWidth < e.PCIeWidth) {
		out = append(out, Reason{Code: PCIeBelowReference,
			Detail: fmt.Sprintf("GPU PCIe gen %d x%d, class %s has gen %d x%d", facts.PCIeGen, facts.PCIeWidth, class.Name, e.PCIeGeneration, e.PCIeWidth)})
	}
	for _, s := range steps {
		if e.NVLink && len(s.PeerLinks) > 0 && !allNVLink(s.PeerLinks) {
			out = append(out, Reason{Code: PeerLinkNotNVLink, Step: s.Step,
				Detail: fmt.Sprintf("%s: GPU peer paths %v, class %s has NVLink", s.Step, s.PeerLinks, class.Name)})
		}
		for _, t := range s.NCCLTransports {
			if strings.HasPrefix(t, "NET/Socket") {
				out = append(out, Reason{Code: NCCLSocketFallback, Step: s.Step, Detail: s.Step + ": NCCL used NET/Socket"})
				break
			}
		}
		if s.WireNotCrossed {
			out = append(out, Reason{Code: WireNotCrossed, Step: s.Step, Detail: s.Step + ": the bytes did not cross the cable"})
		}
	}
	return out
}

// relativeReasons judges a step's figure against a fraction of its ceiling on this node; an
// unknown ceiling cannot be judged (NoReference, saying why), never passed.
func relativeReasons(ref Reference, s *StepOutcome, class *Class) []Reason {
	sc, ok := s.Ceilings[ref.Figure]
	switch {
	case !ok:
		return []Reason{{Code: StepMissing, Step: ref.Step,
			Detail: fmt.Sprintf("%s: no %s to compare with %.2f of its ceiling", ref.Step, ref.Figure, ref.MinFractionOfCeiling)}}
	case !sc.Known():
		return []Reason{{Code: NoReference, Step: ref.Step,
			Detail: fmt.Sprintf("%s: %s is judged against %.2f of its ceiling, and the %s", ref.Step, ref.Figure, ref.MinFractionOfCeiling, sc)}}
	case sc.Fraction >= ref.MinFractionOfCeiling:
		return nil
	}
	return []Reason{{Code: BelowReference, Step: ref.Step,
		Detail: fmt.Sprintf("%s: %s %s, reference >= %.2f of the ceiling (class %s)", ref.Step, ref.Figure, sc, ref.MinFractionOfCeiling, class.Name)}}
}
