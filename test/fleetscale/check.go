package fleetscale

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	pkgfleet "github.com/spiralbench/spiralbench/pkg/fleet"
)

// check counts what must be zero: nodes without a verdict in their SpiralBenchNodeResult
// (lost), nodes benched more than once or with two results in the round (repeated), benches overlapping on a node (from the pods' own timestamps).
func check(ctx context.Context, c client.Client, f *sbv1.SpiralBenchFleet, rec *podRecorder, res *Result) error {
	var results sbv1.SpiralBenchNodeResultList
	if err := c.List(ctx, &results, client.InNamespace(namespace), client.MatchingLabels{
		sbv1.LabelResultFleet: f.Name, sbv1.LabelResultRound: strconv.Itoa(int(f.Status.Round))}); err != nil {
		return err
	}
	decided := map[string]bool{}
	rows := map[string]int{}
	for i := range results.Items {
		row := results.Items[i].Result
		if data, err := json.Marshal(&results.Items[i]); err == nil && len(data) > res.LargestResultJSON {
			res.LargestResultJSON = len(data)
		}
		if rows[row.Name]++; rows[row.Name] == 2 { // one result per node and round, by its name
			res.Repeated++
			res.Problems = append(res.Problems, "node "+row.Name+" has two results in the round")
		}
		res.Verdicts[string(row.Verdict)]++
		if row.Verdict == sbv1.NodeFailed || row.Verdict == sbv1.NodeInvalid {
			for _, code := range row.Reasons {
				res.Reasons[code]++ // "StepDeadlineExceeded:tcp": what failed the node, and where
			}
		}
		switch row.Verdict {
		case sbv1.NodePassed, sbv1.NodeFailed, sbv1.NodeInvalid:
			decided[row.Name] = true
		}
	}
	res.Decided = len(decided)
	for i := 0; i < res.Nodes && res.Completed; i++ { // a run stopped early has undecided nodes, not lost ones
		if !decided[nodeName(i)] {
			res.Lost++
		}
	}
	var benches sbv1.SpiralBenchList
	if err := c.List(ctx, &benches, client.InNamespace(namespace)); err != nil {
		return err
	}
	perNode := map[string]int{}
	for i := range benches.Items {
		sb := &benches.Items[i]
		if data, err := json.Marshal(sb); err == nil && len(data) > res.LargestBenchJSON {
			res.LargestBenchJSON, res.LargestBench = len(data), data
		}
		if p := sb.Spec.Topology.Placement; p != nil {
			perNode[p.NodeName+stepSuffix(sb)]++
		}
		for _, cell := range sb.Status.CellResults {
			res.Attempts += int(cell.Attempts)
		}
	}
	if f.Spec.Suite != nil && res.Completed { // every step of every node ran: a step lost counts as lost
		for i := 0; i < res.Nodes; i++ {
			for _, step := range pkgfleet.Steps(&f.Spec) {
				if key := nodeName(i) + "/" + step.Name; perNode[key] == 0 {
					res.Lost++
					res.Problems = append(res.Problems, "no bench for "+key)
				}
			}
		}
	}
	for node, n := range perNode {
		if n > 1 {
			res.Repeated += n - 1
			res.Problems = append(res.Problems, fmt.Sprintf("node (and step) %s has %d benches", node, n))
		}
	}
	for node, benches := range rec.spans() {
		var spans [][2]int64
		for _, s := range benches {
			spans = append(spans, [2]int64{s[0].UnixMilli(), s[1].UnixMilli()})
		}
		for i := range spans {
			for j := i + 1; j < len(spans); j++ {
				if spans[i][0] < spans[j][1] && spans[j][0] < spans[i][1] {
					res.Overlaps++
					res.Problems = append(res.Problems, fmt.Sprintf("benches overlap on node %s", node))
				}
			}
		}
	}
	return nil
}

// stepSuffix tells a suite's steps apart: each (node, step) must have exactly one bench.
func stepSuffix(sb *sbv1.SpiralBench) string {
	if step := sb.Labels["spiralbench.io/fleet-step"]; step != "" {
		return "/" + step
	}
	return ""
}
