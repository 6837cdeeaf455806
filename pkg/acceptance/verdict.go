package acceptance

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// The one verdict of a finished bench. The controller (at completion) and pkg/runstore (a run
// read back from the bucket) both call Decide on the same inputs, so both say the same.

// Parts of a verdict's message are joined by partSep; Split takes them apart again.
const partSep = " | "

// maxListed bounds how many unmeasured cells the message names, and maxCellReason how long
// each one's reason may be: the condition and the event stay readable for any plan size.
const (
	maxListed     = 5
	maxCellReason = 160
)

// Decide judges a finished bench: Passed only when every planned cell measured every repeat
// Valid and every rule (and the baseline) holds, unless spec.acceptance.allowFailedCells lets
// Failed and Invalid cells pass, visibly (reason FailedCellsAllowed). It reads the spec, the
// planned cell count (status.cells.total), the cell results and the baseline's figures
// (status.baseline), nothing else.
func Decide(sb *sbv1.SpiralBench) Verdict {
	a := sb.Spec.Acceptance
	if a == nil {
		a = &sbv1.AcceptanceSpec{}
	}
	failed, invalid, valid := unmeasured(sb)
	judged := sb.Status.CellResults
	allowed := a.AllowFailedCells && len(failed)+len(invalid) > 0
	if allowed {
		judged = nil
		for _, c := range sb.Status.CellResults {
			if c.State == sbv1.CellValid {
				judged = append(judged, c)
			}
		}
	}
	var held, broken []string
	if a.Baseline != nil {
		held, broken = compareRecorded(*a.Baseline, judged, sb.Status.Baseline)
	}
	rules := JudgeWith(sb, a.Rules, judged, held, broken)
	cells := cellsPart(sb, failed, invalid)
	switch {
	case allowed && valid == 0:
		cells += " (allowFailedCells needs at least one Valid cell)"
		allowed = false
	case allowed:
		cells = "allowFailedCells: " + cells
	}
	withRules := func(first string) string {
		if rules.Reason == sbv1.ReasonNoRules {
			return first
		}
		return first + partSep + rules.Message
	}
	switch {
	case len(failed) > 0 && !allowed:
		return Verdict{Reason: sbv1.ReasonCellsFailed, Message: withRules(cells)}
	case !rules.Passed:
		if cells != "" {
			rules.Message += partSep + cells
		}
		return rules
	case len(invalid) > 0 && !allowed:
		return Verdict{Reason: sbv1.ReasonCellsInvalid, Message: withRules(cells)}
	case allowed:
		return Verdict{Passed: true, Reason: sbv1.ReasonFailedCellsAllowed, Message: withRules(cells)}
	}
	return rules
}

// compareRecorded compares with the baseline's recorded figures; none recorded breaks the
// comparison (a run uploaded before figures were kept).
func compareRecorded(spec sbv1.BaselineSpec, cells []sbv1.CellResult, f *sbv1.BaselineFigures) (held, broken []string) {
	if f == nil || f.SpiralBenchName != spec.SpiralBenchName {
		return nil, []string{fmt.Sprintf("baseline %s: no figures of it were recorded with this run", spec.SpiralBenchName)}
	}
	return CompareFigures(spec, cells, *f)
}

// shortfall is a planned cell without a trustworthy measurement.
type shortfall struct {
	index  int32
	params string
	reason string
}

// unmeasured sorts the planned cells: failed (no result, fewer repeats than planned, or not
// finished), invalid, and how many are Valid.
func unmeasured(sb *sbv1.SpiralBench) (failed, invalid []shortfall, valid int) {
	repeats := max(sb.Spec.Run.Repeats, 1)
	seen := map[int32]bool{}
	for _, c := range sb.Status.CellResults {
		seen[c.Index] = true
		s := shortfall{index: c.Index, params: benchkind.Parameters(sb.Spec.Transport, c.Parameters), reason: c.Message}
		switch {
		case c.State == sbv1.CellValid && c.Repeats < repeats:
			s.reason = fmt.Sprintf("measured %d of %d repeats", c.Repeats, repeats)
			failed = append(failed, s)
		case c.State == sbv1.CellValid:
			valid++
		case c.State == sbv1.CellInvalid:
			invalid = append(invalid, s)
		case c.State == sbv1.CellFailed:
			failed = append(failed, s)
		default:
			s.reason = fmt.Sprintf("not finished (%s)", c.State)
			failed = append(failed, s)
		}
	}
	for i := int32(0); i < sb.Status.Cells.Total; i++ {
		if !seen[i] {
			failed = append(failed, shortfall{index: i, reason: "no result"})
		}
	}
	return failed, invalid, valid
}

// cellsPart says how many cells failed or were invalid and names the first few with their
// reasons: "9 of 20 cells failed: cell 3 (8000 B x 4 pairs): ...; cell 5 (...): ...; and 4 more".
func cellsPart(sb *sbv1.SpiralBench, failed, invalid []shortfall) string {
	if len(failed)+len(invalid) == 0 {
		return ""
	}
	total := max(sb.Status.Cells.Total, int32(len(sb.Status.CellResults)))
	var head string
	switch {
	case len(failed) > 0 && len(invalid) > 0:
		head = fmt.Sprintf("%d of %d cells failed, %d invalid", len(failed), total, len(invalid))
	case len(failed) > 0:
		head = fmt.Sprintf("%d of %d cells failed", len(failed), total)
	default:
		head = fmt.Sprintf("%d of %d cells invalid", len(invalid), total)
	}
	var listed []string
	add := func(s shortfall, mark string) {
		if len(listed) >= maxListed {
			return
		}
		name := fmt.Sprintf("cell %d", s.index)
		if s.params != "" {
			name += " (" + s.params + ")"
		}
		reason := strings.ReplaceAll(clip(s.reason, maxCellReason), partSep, " / ")
		if reason == "" {
			reason = "no reason recorded"
		}
		listed = append(listed, name+mark+": "+reason)
	}
	mark := ""
	if len(failed) > 0 && len(invalid) > 0 {
		mark = " invalid"
	}
	for _, s := range failed {
		add(s, "")
	}
	for _, s := range invalid {
		add(s, mark)
	}
	if more := len(failed) + len(invalid) - len(listed); more > 0 {
		listed = append(listed, fmt.Sprintf("and %d more", more))
	}
	return head + ": " + strings.Join(listed, "; ")
}

// Split takes a verdict's message apart for the HTML report: the part about the cells, and the
// rules (and baseline) that broke and held.
func Split(message string) (cells string, broken, held []string) {
	for _, part := range strings.Split(message, partSep) {
		switch {
		case strings.HasPrefix(part, "broken: "):
			broken = strings.Split(strings.TrimPrefix(part, "broken: "), "; ")
		case strings.HasPrefix(part, "held: "):
			held = strings.Split(strings.TrimPrefix(part, "held: "), "; ")
		case part != "no acceptance rules":
			cells = part
		}
	}
	return cells, broken, held
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
