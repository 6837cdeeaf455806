package fleet

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestSummaryFiles(t *testing.T) {
	s := Summary{Namespace: "ns", Fleet: "f", Round: 2, Metric: "RxMbps", Median: ptr.To[int64](1000),
		Counts: sbv1.FleetCounts{Nodes: 2, Passed: 1, Failed: 1},
		Nodes: []sbv1.FleetNode{
			{Name: "a", Verdict: sbv1.NodePassed, Value: ptr.To[int64](1000), FleetDeltaMilliPercent: ptr.To[int32](0),
				StepsSummary: "2/2 passed, 1 excused", Steps: []sbv1.FleetStepRecord{{Name: "copy", State: sbv1.StepRecordExcused}, {Name: "tcp", State: sbv1.StepRecordPassed}}},
			{Name: "b", Verdict: sbv1.NodeFailed, Reason: "rule line-rate, with comma", Straggler: true,
				Class: "cpu-only", Reasons: []string{"StepFailed:floor", "StepSkipped:after"}},
		}}
	files, err := SummaryFiles(s)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(files["summary.csv"])).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv rows %d: %v", len(rows), err)
	}
	if rows[1][0] != "a" || rows[1][6] != "1000" || rows[2][2] != "rule line-rate, with comma" || rows[2][9] != "true" ||
		rows[2][13] != "cpu-only" || rows[2][14] != "StepFailed:floor StepSkipped:after" || rows[1][17] != "2/2 passed, 1 excused" {
		t.Fatalf("rows %v", rows)
	}
	var back Summary
	if err := json.Unmarshal(files["summary.json"], &back); err != nil || back.V != 1 || len(back.Nodes) != 2 || back.Counts.Failed != 1 ||
		len(back.Steps) != 2 || back.Steps[0] != (StepCount{Step: "copy", Excused: 1}) || back.Steps[1] != (StepCount{Step: "tcp", Passed: 1}) {
		t.Fatalf("json %+v %v", back, err)
	}
}
