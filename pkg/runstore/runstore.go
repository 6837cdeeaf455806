// Package runstore reads a finished run back from the results bucket: the files pkg/report
// wrote (results.jsonl, spec.json, environment.json, verdict.json) become a SpiralBench again,
// its cell results re-aggregated with pkg/aggregate and its verdict decided by the same
// acceptance.Decide as the live bench's, so sbctl compare and sbctl report work on runs whose
// SpiralBench is long deleted.
package runstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// Files are the objects a run needs.
var Files = []string{"results.jsonl", "spec.json", "environment.json"}

// OptionalFiles are read when the run has them: runs uploaded before they were written lack them.
var OptionalFiles = []string{report.VerdictFile}

// record mirrors a line of results.jsonl (pkg/report).
type record struct {
	Bench      string              `json:"bench"`
	Namespace  string              `json:"namespace"`
	RunID      string              `json:"runID"`
	Cell       int32               `json:"cell"`
	Headline   bool                `json:"headline"`
	CellState  sbv1.CellState      `json:"cellState"`
	Message    string              `json:"message"`
	Parameters sbv1.CellParameters `json:"parameters"`
	Result     *sbv1.RepeatResult  `json:"result"`
}

// FromFiles rebuilds a bench from a run's files. Its verdict is decided again by
// acceptance.Decide, with the baseline's figures verdict.json recorded: the live verdict.
func FromFiles(files map[string][]byte) (*sbv1.SpiralBench, error) {
	for _, f := range Files {
		if _, ok := files[f]; !ok {
			return nil, fmt.Errorf("the run has no %s", f)
		}
	}
	var spec struct {
		Metadata struct {
			Name, Namespace string
			UID             types.UID
		} `json:"metadata"`
		Spec sbv1.SpiralBenchSpec `json:"spec"`
	}
	if err := json.Unmarshal(files["spec.json"], &spec); err != nil {
		return nil, fmt.Errorf("spec.json: %w", err)
	}
	var env struct {
		Environment    *sbv1.Environment `json:"environment"`
		Nodes          []string          `json:"nodes"`
		StartTime      *metav1.Time      `json:"startTime"`
		CompletionTime *metav1.Time      `json:"completionTime"`
	}
	if err := json.Unmarshal(files["environment.json"], &env); err != nil {
		return nil, fmt.Errorf("environment.json: %w", err)
	}
	sb := &sbv1.SpiralBench{Spec: spec.Spec}
	sb.Name, sb.Namespace, sb.UID = spec.Metadata.Name, spec.Metadata.Namespace, spec.Metadata.UID
	sb.Status = sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted, Environment: env.Environment, Nodes: env.Nodes,
		StartTime: env.StartTime, CompletionTime: env.CompletionTime}

	cells := map[int32]*sbv1.CellResult{}
	sc := bufio.NewScanner(bytes.NewReader(files["results.jsonl"]))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("results.jsonl line %d: %w", line, err)
		}
		c := cells[r.Cell]
		if c == nil {
			c = &sbv1.CellResult{Index: r.Cell, Headline: r.Headline, Parameters: r.Parameters, State: r.CellState, Message: r.Message}
			cells[r.Cell] = c
		}
		if r.Result != nil {
			c.RepeatResults = append(c.RepeatResults, *r.Result)
			c.Attempts = max(c.Attempts, r.Result.Attempt+1)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, c := range cells {
		if len(c.RepeatResults) > 0 {
			state, msg := c.State, c.Message
			aggregate.Fill(c)
			aggregate.FlagNoisy(c, sb.Spec.Run.NoisySpreadPercent)
			if state == sbv1.CellFailed { // a cell can fail after measuring some repeats
				c.State, c.Message = state, msg
			}
		}
		sb.Status.CellResults = append(sb.Status.CellResults, *c)
	}
	sort.Slice(sb.Status.CellResults, func(i, j int) bool { return sb.Status.CellResults[i].Index < sb.Status.CellResults[j].Index })
	sb.Status.Cells.Total = int32(len(sb.Status.CellResults))
	if data, ok := files[report.VerdictFile]; ok {
		var v report.RecordedVerdict
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", report.VerdictFile, err)
		}
		// The plan's size, so a planned cell without a record shows as unmeasured.
		sb.Status.Cells.Total = max(sb.Status.Cells.Total, v.PlannedCells)
		sb.Status.Baseline = v.Baseline
	}
	acceptance.Count(&sb.Status)
	judge(sb)
	return sb, nil
}

func judge(sb *sbv1.SpiralBench) {
	v := acceptance.Decide(sb)
	status := metav1.ConditionTrue
	if !v.Passed {
		status = metav1.ConditionFalse
	}
	at := metav1.Now()
	if sb.Status.CompletionTime != nil {
		at = *sb.Status.CompletionTime
	}
	sb.Status.Conditions = []metav1.Condition{{Type: sbv1.ConditionPassed, Status: status, Reason: v.Reason,
		Message: v.Message, LastTransitionTime: at}}
}
