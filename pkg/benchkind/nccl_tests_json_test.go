package benchkind

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// nccl-tests 2.19.6's own analyzer and the recorded H200 sweep, kept with the data plane's check
// of the same schema (dataplane/tests/nccl/testdata/README.md says where they come from).
const ncclTestdata = "../../dataplane/tests/nccl/testdata"

// recordedRun2 is the recorded one-H200 all_reduce sweep as the status holds it: each row's
// time from the recording, algbw from it as the data plane computes it, busbw 0 at one rank.
func recordedRun2(t *testing.T) *sbv1.CollectiveResult {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ncclTestdata, "h200_1gpu_all_reduce_run2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Ranks []struct {
			Rows []struct {
				Bytes   int64   `json:"bytes"`
				InPlace bool    `json:"in_place"`
				TimeUs  float64 `json:"time_us"`
				Wrong   int64   `json:"wrong"`
			} `json:"rows"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	col := &sbv1.CollectiveResult{Operation: sbv1.NCCLAllReduce, Ranks: 1, NCCLVersion: "2.28.9+cuda13.0"}
	for _, r := range in.Ranks[0].Rows {
		col.Sizes = append(col.Sizes, sbv1.CollectiveSize{Bytes: r.Bytes, InPlace: r.InPlace,
			TimeNanoseconds: int64(math.Round(r.TimeUs * 1000)), AlgbwMBps: int64(math.Round(float64(r.Bytes) / r.TimeUs)),
			Check: sbv1.NCCLCheckPassed})
	}
	return col
}

func ncclBench(repeats ...sbv1.RepeatResult) *sbv1.SpiralBench {
	start := metav1.NewTime(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	return &sbv1.SpiralBench{
		Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportNCCL, NCCL: &sbv1.NCCLSpec{Operation: sbv1.NCCLAllReduce,
			MinBytes: 8, MaxBytes: 1 << 30, Iterations: 100, WarmupIterations: 10, CheckIterations: 1}},
		Status: sbv1.SpiralBenchStatus{StartTime: &start,
			CellResults: []sbv1.CellResult{{Index: 0, RepeatResults: repeats}}},
	}
}

// analyze runs nccl-tests' analyze_perf_json.py on doc; skips without python3.
func analyze(t *testing.T, doc []byte, flags ...string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: analyze_perf_json.py needs it (hack/deps-dataplane.sh installs it)")
	}
	path := filepath.Join(t.TempDir(), NCCLTestsFile)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, append([]string{filepath.Join(ncclTestdata, "nccl-tests", "analyze_perf_json.py"), path}, flags...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("analyze_perf_json.py %v: %v\n%s", flags, err, out)
	}
	return string(out)
}

func TestNCCLTestsJSONOfARecordedSweepReadsInNCCLTestsTools(t *testing.T) {
	doc, err := NCCLTestsJSON(ncclBench(sbv1.RepeatResult{Repeat: 0, State: sbv1.CellValid, Collective: recordedRun2(t)}))
	if err != nil || doc == nil {
		t.Fatalf("NCCLTestsJSON: %v (%d bytes)", err, len(doc))
	}
	out := analyze(t, doc)
	for _, want := range []string{"Version:    3", "Results:    28", "Iterations: 100", "Process rows: 0",
		"Consistency (times_us == max over process rows, OOP): N/A (no process rows)"} {
		if !strings.Contains(out, want) {
			t.Errorf("analyze_perf_json.py output lacks %q:\n%s", want, out)
		}
	}
	if out := analyze(t, doc, "--all"); strings.Count(out, "No per-process data available.") != 3 {
		t.Errorf("--all: want straggler, spikes and nodes to find no per-process data:\n%s", out)
	}

	var got map[string]any
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if want := "version start_time args env nccl_version config results out_of_bounds average_bus_bandwidth errors end_time"; strings.Join(keys, " ") != want {
		t.Errorf("top-level keys %v, want nccl-tests' order %s", keys, want)
	}
	if got["nccl_version"] != 22809.0 || got["start_time"] != "2026-11-29 10:00:00" || got["end_time"] != nil {
		t.Errorf("nccl_version %v start_time %v end_time %v", got["nccl_version"], got["start_time"], got["end_time"])
	}
	results := got["results"].([]any)
	last := results[len(results)-1].(map[string]any)
	oop := last["out_of_place"].(map[string]any)
	if last["size"] != float64(1<<30) || last["count"] != float64(1<<28) || oop["time"] != 504.7 || oop["nwrong"] != 0.0 ||
		last["redop"] != "sum" || last["root"] != "    -1" || last["experiment_name"] != "cell 0 repeat 0" {
		t.Errorf("1 GiB result: %v", last)
	}
	if _, ok := last["out_of_place_per_iter"]; ok {
		t.Errorf("the status has no per-iteration times, yet %s has out_of_place_per_iter", NCCLTestsFile)
	}
}

func TestNCCLTestsJSONSaysWhatItDoesNotHave(t *testing.T) {
	if doc, err := NCCLTestsJSON(ncclBench(sbv1.RepeatResult{State: sbv1.CellFailed})); doc != nil || err != nil {
		t.Fatalf("no sweep: want no file, got %s (%v)", doc, err)
	}
	sendrecv := &sbv1.CollectiveResult{Operation: sbv1.NCCLSendRecv, Ranks: 2, Sizes: []sbv1.CollectiveSize{
		{Bytes: 1024, TimeNanoseconds: 9000, AlgbwMBps: 113, BusbwMBps: 113, Check: sbv1.NCCLCheckFailed, WrongElements: 7},
		{Bytes: 1024, InPlace: true, TimeNanoseconds: 8000, AlgbwMBps: 128, BusbwMBps: 128, Check: sbv1.NCCLCheckNotDefined},
		{Bytes: 2048, InPlace: true, TimeNanoseconds: 8500, AlgbwMBps: 241, BusbwMBps: 241, Check: sbv1.NCCLCheckPassed}}}
	sb := ncclBench(sbv1.RepeatResult{Repeat: 0, State: sbv1.CellValid, Collective: sendrecv},
		sbv1.RepeatResult{Repeat: 1, State: sbv1.CellInvalid, Message: "NET/Socket used", Collective: sendrecv})
	doc, err := NCCLTestsJSON(sb)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Results []map[string]any `json:"results"`
		Bounds  map[string]any   `json:"out_of_bounds"`
		Errors  []string         `json:"errors"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 4 || got.Results[2]["experiment_name"] != "cell 0 repeat 1" {
		t.Fatalf("want 2 sizes x 2 repeats, named by repeat: %v", got.Results)
	}
	r0 := got.Results[0]
	if r0["out_of_place"].(map[string]any)["nwrong"] != 7.0 || r0["in_place"].(map[string]any)["nwrong"] != nil ||
		got.Results[1]["out_of_place"] != nil || r0["redop"] != "none" {
		t.Errorf("1 KiB: want nwrong 7 out of place, null in place (not defined), 2 KiB out of place null: %v, %v", r0, got.Results[1])
	}
	if got.Bounds["count"] != 2.0 || got.Bounds["okay"] != "false" || len(got.Errors) != 1 ||
		got.Errors[0] != "cell 0 repeat 1: Invalid: NET/Socket used" {
		t.Errorf("out_of_bounds %v errors %v", got.Bounds, got.Errors)
	}
	analyze(t, doc, "--all")
}

// alltoallv's count is the per-peer count of its generated traffic, as nccl-tests prints it:
// exact at one rank; at four, spread 1, 1 KiB sends 0+160+336+512 bytes (16-byte shares), so
// the size is 1008 B and the count one short of nccl-tests' 64.
func TestNCCLTestsJSONCountOfAllToAllv(t *testing.T) {
	if n, ok := ncclCount(sbv1.NCCLAllToAllv, 1024, 4, 1); !ok || n != 256 {
		t.Errorf("one rank: %d, %v", n, ok)
	}
	if n, ok := ncclCount(sbv1.NCCLAllToAllv, 1008, 4, 4); !ok || n != 63 {
		t.Errorf("four ranks: %d, %v", n, ok)
	}
}
