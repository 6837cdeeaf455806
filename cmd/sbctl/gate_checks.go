package main

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// The gate's exit codes. 1 is kept for "the thing under test is worse" (a rule broke, a cell
// failed or was invalid, a download did not verify), 2 for "no verdict could be had" (timeout,
// a bad command line, the cluster or bucket out of reach, the bench could not run), so a
// pipeline can tell a driver regression from a broken pipeline.
const (
	gatePass      = 0
	gateFail      = 1
	gateNoVerdict = 2
)

// gateResult is what a gate run found: the bench as last read (nil when it never got that
// far), whether it finished, and what went wrong.
type gateResult struct {
	bench    *sbv1.SpiralBench
	finished bool
	// problem is why no verdict could be had: timeout, cluster or bucket errors, no upload.
	problem error
	// unsigned is a download that did not verify (verifyTree's own report).
	unsigned error
	// verified: every downloaded file is as the operator signed it.
	verified bool
	// runDir is where the run's files were downloaded, when they were; files how many verified.
	runDir string
	files  int
}

// exit maps the result to the gate's exit code and a one-line reason. A broken rule or cell
// decides 1 even when the upload then failed: the regression is real whatever the bucket did.
func (r gateResult) exit() (int, string) {
	sb := r.bench
	if sb == nil || !r.finished {
		return gateNoVerdict, "no verdict: " + errText(r.problem, "the bench did not finish")
	}
	if sb.Status.Phase == sbv1.PhaseFailed {
		msg := "the bench could not run"
		if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionFailed); c != nil {
			msg += fmt.Sprintf(" (%s): %s", c.Reason, c.Message)
		}
		return gateNoVerdict, "no verdict: " + msg
	}
	passed := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	switch {
	case passed == nil || passed.Status == metav1.ConditionUnknown:
		return gateNoVerdict, "no verdict: the bench completed without a Passed condition"
	case passed.Status == metav1.ConditionFalse:
		return gateFail, fmt.Sprintf("not passed (%s): %s", passed.Reason, passed.Message)
	case r.unsigned != nil:
		return gateFail, "the results do not verify: " + r.unsigned.Error()
	case r.problem != nil || !r.verified:
		return gateNoVerdict, "passed, but its results were not verified: " + errText(r.problem, "nothing was downloaded")
	}
	return gatePass, fmt.Sprintf("passed (%s) and its download verified (%d files)", passed.Reason, r.files)
}

func errText(err error, otherwise string) string {
	if err == nil {
		return otherwise
	}
	return err.Error()
}

// checkStatus is a check's outcome; JUnit and CTRF each render it their way.
type checkStatus string

const (
	checkPassed  checkStatus = "passed"
	checkFailed  checkStatus = "failed"
	checkError   checkStatus = "error"   // an Invalid cell, or the gate could not judge
	checkSkipped checkStatus = "skipped" // allowed by allowFailedCells, or not attempted
	checkPending checkStatus = "pending" // a cell not finished when the gate gave up
)

// check is one line of the test reports: a cell, a rule, the baseline, or a step of the gate.
type check struct {
	suite   string // cells, rules, baseline, gate
	name    string
	status  checkStatus
	raw     string // the status in SpiralBench's words (Valid, Invalid, Failed, ...)
	message string
	detail  string // measured figures, for the report's output
	start   time.Time
	took    time.Duration
}

// gateChecks lists every check of a gate run in report order: cells, rules, baseline, gate.
func gateChecks(r gateResult) []check {
	var out []check
	if sb := r.bench; sb != nil {
		out = append(out, cellChecks(sb)...)
		out = append(out, ruleChecks(sb, r.finished)...)
	}
	if r.bench == nil || !r.finished {
		out = append(out, check{suite: "gate", name: "bench finished", status: checkError,
			message: errText(r.problem, "the bench did not finish")})
	}
	sig := check{suite: "gate", name: "results signature", status: checkSkipped, message: "not downloaded"}
	switch {
	case r.verified:
		sig.status, sig.detail = checkPassed, fmt.Sprintf("%d files as the operator signed them", r.files)
		if r.runDir != "" {
			sig.detail += ", in " + r.runDir
		}
	case r.unsigned != nil:
		sig.status, sig.message = checkFailed, r.unsigned.Error()
	case r.finished && r.problem != nil:
		sig.status, sig.message = checkError, r.problem.Error()
	}
	return append(out, sig)
}

// cellChecks is a check per planned cell, named by its parameters (stable across runs, so a
// CI system's history follows a cell even when the matrix grows).
func cellChecks(sb *sbv1.SpiralBench) []check {
	repeats := max(sb.Spec.Run.Repeats, 1)
	passed := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	allowed := passed != nil && passed.Reason == sbv1.ReasonFailedCellsAllowed
	finished := sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed
	seen, names := map[int32]bool{}, map[string]bool{}
	name := func(index int32, params string) string {
		n := params
		switch {
		case n == "": // a kind whose cells have no coordinates
			n = fmt.Sprintf("cell %d", index)
		case names[n]: // two cells alike: the index tells them apart
			n = fmt.Sprintf("%s #%d", params, index)
		}
		names[n] = true
		return n
	}
	var out []check
	for _, c := range sb.Status.CellResults {
		seen[c.Index] = true
		k := check{suite: "cells", name: name(c.Index, benchkind.Parameters(sb.Spec.Transport, c.Parameters)),
			raw: string(c.State), message: c.Message}
		if c.StartTime != nil {
			k.start = c.StartTime.Time
			if c.CompletionTime != nil {
				k.took = c.CompletionTime.Sub(c.StartTime.Time)
			}
		}
		k.detail = fmt.Sprintf("cell %d", c.Index)
		if c.Headline {
			k.detail += " (headline)"
		}
		if c.Repeats > 0 {
			k.detail += fmt.Sprintf(": RX %s Gb/s, TX %s Gb/s", figure.Rx.StatText(&c, " ± ", "-"), figure.Tx.StatText(&c, " ± ", "-"))
		}
		k.detail += fmt.Sprintf(", %d/%d repeats/attempts", c.Repeats, c.Attempts)
		switch {
		case c.State == sbv1.CellValid && c.Repeats < repeats:
			k.status, k.message = checkFailed, fmt.Sprintf("measured %d of %d repeats", c.Repeats, repeats)
		case c.State == sbv1.CellValid:
			k.status = checkPassed
		case c.State == sbv1.CellInvalid:
			k.status = checkError
		case c.State == sbv1.CellFailed:
			k.status = checkFailed
		default:
			k.status, k.message = checkPending, fmt.Sprintf("not finished (%s)", c.State)
		}
		if allowed && (k.status == checkFailed || k.status == checkError) {
			k.message = "allowed by spec.acceptance.allowFailedCells: " + k.message
			k.status = checkSkipped
		}
		out = append(out, k)
	}
	for i := int32(0); i < sb.Status.Cells.Total; i++ {
		if seen[i] {
			continue
		}
		params, _ := cellParameters(sb, i)
		k := check{suite: "cells", name: name(i, params), status: checkPending, message: "not run"}
		if finished {
			k.status, k.message = checkFailed, "no result"
		}
		out = append(out, k)
	}
	return out
}

// ruleChecks judges each rule on its own with pkg/acceptance (the operator's judge), so each
// check carries the rule's measured value and threshold; then the baseline, when there is one.
func ruleChecks(sb *sbv1.SpiralBench, finished bool) []check {
	a := sb.Spec.Acceptance
	if a == nil {
		return nil
	}
	// The cells the verdict judged: acceptance.Decide leaves out Failed and Invalid cells only
	// when allowFailedCells let them pass.
	judged := sb.Status.CellResults
	if p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed); p != nil && p.Reason == sbv1.ReasonFailedCellsAllowed {
		judged = nil
		for _, c := range sb.Status.CellResults {
			if c.State == sbv1.CellValid {
				judged = append(judged, c)
			}
		}
	}
	done := finished && sb.Status.Phase == sbv1.PhaseCompleted
	var out []check
	for _, rule := range a.Rules {
		k := check{suite: "rules", name: rule.Name, status: checkPending, message: "not judged: the bench did not complete"}
		if done {
			v := acceptance.Judge(sb, []sbv1.AcceptanceRule{rule}, judged)
			k.message = strings.TrimPrefix(strings.TrimPrefix(v.Message, "held: "), "broken: ")
			k.status = map[bool]checkStatus{true: checkPassed, false: checkFailed}[v.Passed]
		}
		out = append(out, k)
	}
	if b := a.Baseline; b != nil {
		k := check{suite: "baseline", name: "baseline " + b.SpiralBenchName, status: checkPending, message: "not judged: the bench did not complete"}
		if done {
			var held, broken []string
			if f := sb.Status.Baseline; f != nil && f.SpiralBenchName == b.SpiralBenchName {
				held, broken = acceptance.CompareFigures(*b, judged, *f)
			} else {
				broken = []string{"no figures of it were recorded with this run"}
			}
			k.status, k.message = checkPassed, strings.Join(held, "; ")
			if len(broken) > 0 {
				k.status, k.message = checkFailed, strings.Join(broken, "; ")
			}
		}
		out = append(out, k)
	}
	return out
}
