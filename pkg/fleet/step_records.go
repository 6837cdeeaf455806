package fleet

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// A node's record shows every step of its suite, not only the last: how each ended, its
// headline figure and what that figure was held to. The records are derived in Judge from the
// reasons of the verdict itself, so a step a reference or the history failed reads Failed
// here as it does in the verdict.

// transportFigures are the figures a step is known by when neither a reference nor the
// history names one, in order of preference.
var transportFigures = []string{"NCCLBusbwMBps", "CopyH2DMBps", string(sbv1.MetricRxMbps), string(sbv1.MetricNDRMbps),
	string(sbv1.MetricPacketsPerSecond)}

// stepRecords records each step of the input as the judgement saw it; reasons are the
// judgement's, which fail a step whose bench passed but whose figure missed its reference or
// history.
func stepRecords(in Input, class *Class, reasons []Reason) []sbv1.FleetStepRecord {
	if len(in.Steps) == 0 {
		return nil
	}
	// The history compares the fleet's metric from the first step that has it, as the
	// controller's suite walk picks its headline bench.
	historyStep := -1
	for i, s := range in.Steps {
		if _, ok := s.Figures[in.HistoryFigure]; ok && in.HistoryFigure != "" {
			historyStep = i
			break
		}
	}
	out := make([]sbv1.FleetStepRecord, 0, min(len(in.Steps), sbv1.MaxSuiteSteps))
	for i, s := range in.Steps {
		if i == sbv1.MaxSuiteSteps {
			break
		}
		rec := sbv1.FleetStepRecord{Name: s.Step, Bench: s.Bench}
		rec.State, rec.Reason = recordState(s, class)
		var refs []Reference
		if class != nil {
			refs = referencesOf(class, s.Step)
		}
		history := ""
		if i == historyStep {
			history = in.HistoryFigure
		}
		if name := headlineFigure(s, refs, history); name != "" {
			rec.Figure, rec.Unit = name, figure.UnitOf(name)
			if v, ok := s.Figures[name]; ok && math.Abs(v) < math.MaxInt64/2 { // a check's JSON may say anything
				rec.Value = ptr.To(int64(math.Round(v)))
			}
		}
		if ran(rec.State) {
			rec.JudgedAgainst = cutRunes(judgedAgainst(in, class, refs, i == historyStep), 256)
		}
		if rec.State == sbv1.StepRecordPassed {
			rec.State, rec.Reason = judgedState(s.Step, reasons, i == historyStep, rec.Reason)
		}
		rec.Reason = cutRunes(rec.Reason, 160)
		out = append(out, rec)
	}
	return out
}

// recordState is the state of a step's own outcome, before its figures are judged.
func recordState(s StepOutcome, class *Class) (sbv1.StepRecordState, string) {
	switch s.State {
	case StepPassedState:
		return sbv1.StepRecordPassed, s.Reason
	case StepFailedState:
		return sbv1.StepRecordFailed, s.Reason
	case StepInvalidState:
		return sbv1.StepRecordInvalid, s.Reason
	case StepDeadlineExceededState:
		return sbv1.StepRecordDeadlineExceeded, s.Reason
	case StepSkippedState:
		return sbv1.StepRecordSkipped, s.Reason
	case StepNoGPUState:
		if class != nil && class.IsNotApplicable(s.Step) {
			return sbv1.StepRecordExcused, "NoGPU: no GPU on this node, and class " + class.Name + " excuses " + s.Step
		}
		if class != nil {
			return sbv1.StepRecordNoGPU, "no GPU on this node, and class " + class.Name + " does not excuse " + s.Step
		}
		return sbv1.StepRecordNoGPU, "no GPU on this node, and no class excuses " + s.Step
	}
	if s.Reason != "" {
		return sbv1.StepRecordMissing, s.Reason
	}
	return sbv1.StepRecordMissing, "no result"
}

// ran says whether the step has an outcome of its own to judge figures of.
func ran(s sbv1.StepRecordState) bool {
	return s == sbv1.StepRecordPassed || s == sbv1.StepRecordFailed || s == sbv1.StepRecordInvalid
}

// judgedState fails (or invalidates) a passed step the judgement found against: its
// reference, its links, or, for the history step, its history. note is what the step said.
func judgedState(step string, reasons []Reason, history bool, note string) (sbv1.StepRecordState, string) {
	var failed, invalidated []string
	for _, r := range reasons {
		if !(step != "" && r.Step == step) && !(history && r.Code == BelowHistory) {
			continue
		}
		why := string(r.Code) + ": " + strings.TrimPrefix(r.Detail, step+": ")
		if failing[r.Code] {
			failed = append(failed, why)
		} else if invalid[r.Code] {
			invalidated = append(invalidated, why)
		}
	}
	switch {
	case len(failed) > 0:
		return sbv1.StepRecordFailed, strings.Join(failed, "; ")
	case len(invalidated) > 0:
		return sbv1.StepRecordInvalid, strings.Join(invalidated, "; ")
	}
	return sbv1.StepRecordPassed, note
}

// referencesOf are the class's references of one step.
func referencesOf(class *Class, step string) []Reference {
	var out []Reference
	for _, r := range class.References {
		if r.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// headlineFigure is the figure a step's record shows: its first reference's, else the
// history's (history names it on the step it was compared on), else the first the step
// measured of transportFigures, else the first it measured by name that the figure table
// knows (a check may report figures of any name; the record keeps only known ones).
func headlineFigure(s StepOutcome, refs []Reference, history string) string {
	if len(refs) > 0 {
		for _, r := range refs {
			if _, ok := s.Figures[r.Figure]; ok {
				return r.Figure
			}
		}
		return refs[0].Figure
	}
	if history != "" {
		return history
	}
	for _, name := range transportFigures {
		if _, ok := s.Figures[name]; ok {
			return name
		}
	}
	names := make([]string, 0, len(s.Figures))
	for name := range s.Figures {
		if _, known := figure.Lookup(name); known {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		return names[0]
	}
	return ""
}

// judgedAgainst says what a step's figures were held to: its class's references (or why
// there are none) and, for the history step, the node's history baseline.
func judgedAgainst(in Input, class *Class, refs []Reference, history bool) string {
	var parts []string
	switch {
	case in.Catalog == nil:
		parts = append(parts, "no reference: the fleet sets no spec.references")
	case class == nil:
		parts = append(parts, "no reference: no class of the catalog matches the node")
	case len(refs) == 0:
		parts = append(parts, "no reference: class "+class.Name+" expects nothing for this step")
	default:
		parts = append(parts, referenceText(refs, class.Name))
	}
	if h := in.History; history && h != nil {
		unit := figure.UnitOf(in.HistoryFigure)
		if h.Samples < 2 {
			parts = append(parts, fmt.Sprintf("history: too few comparable runs to compare (%d samples)", h.Samples))
		} else {
			parts = append(parts, fmt.Sprintf("history: mean %.0f %s, std %.0f, bound %.0f (%d samples)", h.Mean, unit, h.Std, h.Threshold, h.Samples))
		}
	}
	return strings.Join(parts, "; ")
}

// referenceText is "55300 MB/s ±10% (class X, source S)" or ">= 0.70 of its ceiling on this
// node (class ...)", each reference named by its figure when the step has more than one.
func referenceText(refs []Reference, class string) string {
	var values, sources []string
	for _, r := range refs {
		v := strconv.FormatFloat(r.Expected, 'f', -1, 64) + " " + figure.UnitOf(r.Figure) + " ±" +
			strconv.FormatFloat(r.TolerancePercent, 'f', -1, 64) + "%"
		if r.Relative() {
			v = fmt.Sprintf(">= %.2f of its ceiling on this node", r.MinFractionOfCeiling)
		}
		if len(refs) > 1 {
			v = r.Figure + " " + v
		}
		values = append(values, v)
		if src := shortSource(r.Source); !slices.Contains(sources, src) {
			sources = append(sources, src)
		}
	}
	return strings.Join(values, ", ") + " (class " + class + ", source " + strings.Join(sources, "; ") + ")"
}

// shortSource is a reference's source up to its first comma: the document it cites (the
// catalog and `sbctl expect CLASS` have the whole of it).
func shortSource(s string) string {
	if i := strings.Index(s, ","); i > 0 {
		return s[:i]
	}
	return s
}

// cutRunes keeps a text within an API length, which counts characters, not bytes.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-3])) + "..."
}
