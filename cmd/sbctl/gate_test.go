package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The JUnit document as a CI system reads it: parsed with encoding/xml into types of the
// test's own, not the writer's, so a field the writer misnames fails here.
type readSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// reports writes both reports of r and reads them back.
func reports(t *testing.T, r gateResult) (readSuites, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	junitPath, ctrfPath := filepath.Join(dir, "reports", "junit.xml"), filepath.Join(dir, "reports", "ctrf.json")
	if err := writeReports(r, junitPath, ctrfPath, fixture.Start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	var j readSuites
	data, err := os.ReadFile(junitPath)
	if err != nil || xml.Unmarshal(data, &j) != nil || len(j.Suites) != 1 {
		t.Fatalf("junit.xml: %v, %d suites\n%s", err, len(j.Suites), data)
	}
	var c map[string]any
	data, err = os.ReadFile(ctrfPath)
	if err != nil || json.Unmarshal(data, &c) != nil {
		t.Fatalf("ctrf.json: %v\n%s", err, data)
	}
	return j, c
}

// checkCTRF checks the fields the CTRF schema requires and that the summary counts the tests.
func checkCTRF(t *testing.T, c map[string]any) map[string]int {
	t.Helper()
	if c["reportFormat"] != "CTRF" || c["specVersion"] == nil {
		t.Errorf("reportFormat %v specVersion %v", c["reportFormat"], c["specVersion"])
	}
	res, _ := c["results"].(map[string]any)
	tool, _ := res["tool"].(map[string]any)
	summary, _ := res["summary"].(map[string]any)
	tests, _ := res["tests"].([]any)
	if tool["name"] != "sbctl" || summary == nil || tests == nil {
		t.Fatalf("results.tool, summary, tests: %v", res)
	}
	for _, k := range []string{"tests", "passed", "failed", "skipped", "pending", "other", "start", "stop"} {
		if _, ok := summary[k].(float64); !ok {
			t.Errorf("summary.%s missing", k)
		}
	}
	got := map[string]int{}
	for _, x := range tests {
		test := x.(map[string]any)
		name, _ := test["name"].(string)
		_, hasDuration := test["duration"].(float64)
		status, _ := test["status"].(string)
		if name == "" || !hasDuration || !strings.Contains(" passed failed skipped pending other ", " "+status+" ") {
			t.Errorf("test without name, duration or a CTRF status: %v", test)
		}
		got[status]++
	}
	for _, k := range []string{"passed", "failed", "skipped", "pending", "other"} {
		if int(summary[k].(float64)) != got[k] {
			t.Errorf("summary.%s = %v, tests say %d", k, summary[k], got[k])
		}
	}
	if int(summary["tests"].(float64)) != len(tests) {
		t.Errorf("summary.tests = %v, %d tests", summary["tests"], len(tests))
	}
	return got
}

// A bench whose 1 MiB x 4 pairs cell failed: that cell fails, the rule that needs every cell
// breaks with the cell named, and the gate exits 1.
func TestGateReportsOfAFailedCell(t *testing.T) {
	r := gateResult{bench: fixture.TCPSweep("tcp-sweep", 1, true), finished: true, verified: true, files: 7}
	if code, why := r.exit(); code != gateFail || !strings.Contains(why, "CellsFailed") {
		t.Errorf("exit %d: %s", code, why)
	}
	j, c := reports(t, r)
	s := j.Suites[0]
	// 9 cells, 2 rules, the signature
	if s.Tests != 12 || j.Tests != 12 || len(s.Cases) != 12 || s.Failures != 2 || s.Errors != 0 || s.Name != "bench/tcp-sweep" {
		t.Fatalf("suite %s: tests %d failures %d errors %d", s.Name, s.Tests, s.Failures, s.Errors)
	}
	byName := map[string]int{}
	for i, tc := range s.Cases {
		byName[tc.Name] = i
	}
	cell, ok := byName["1 MiB x 4 pairs"]
	if !ok || s.Cases[cell].Failure == nil || s.Cases[cell].Failure.Message != "client pod: OOMKilled" ||
		!strings.HasSuffix(s.Cases[cell].Classname, ".cells") || s.Cases[cell].Time != "105.000" {
		t.Errorf("the failed cell, by its parameters: %+v (names %v)", s.Cases[cell], byName)
	}
	rule := s.Cases[byName["no-retransmit-storm"]]
	if rule.Failure == nil || !strings.Contains(rule.Failure.Message, "failed (client pod: OOMKilled)") {
		t.Errorf("no-retransmit-storm: %+v", rule)
	}
	if head := s.Cases[byName["headline-line-rate"]]; head.Failure != nil || head.Skipped != nil {
		t.Errorf("headline-line-rate held: %+v", head)
	}
	props := map[string]string{}
	for _, p := range s.Props {
		props[p.Name] = p.Value
	}
	if props["gpuDriver"] != "580.95.05" || props["passed"] != "False (CellsFailed)" || props["runID"] == "" {
		t.Errorf("properties: %v", props)
	}
	if got := checkCTRF(t, c); got["failed"] != 2 || got["passed"] != 10 {
		t.Errorf("ctrf statuses: %v", got)
	}
}

// A rule's failure message carries the measured value and the threshold.
func TestGateRuleFailureNamesValueAndThreshold(t *testing.T) {
	r := gateResult{bench: fixture.TCPSweep("slow", 0.5, false), finished: true, verified: true}
	if code, _ := r.exit(); code != gateFail {
		t.Errorf("a broken rule: exit %d", code)
	}
	j, c := reports(t, r)
	var msg string
	for _, tc := range j.Suites[0].Cases {
		if tc.Name == "headline-line-rate" && tc.Failure != nil {
			msg = tc.Failure.Message
		}
	}
	if !strings.Contains(msg, "RxMbps = 48") || !strings.Contains(msg, "want >= 90000") {
		t.Errorf("headline-line-rate's failure: %q", msg)
	}
	checkCTRF(t, c)
}

// An Invalid cell is a JUnit error and a CTRF failure with its raw state.
func TestGateInvalidCellIsAnError(t *testing.T) {
	cells := []sbv1.CellResult{
		{Index: 0, State: sbv1.CellValid, Repeats: 1, Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 1}},
		{Index: 1, State: sbv1.CellInvalid, Repeats: 1, Message: "counters disagree", Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 2}},
	}
	sb := sbtesting.DecidedBench(nil, cells...)
	sb.Namespace, sb.Name = "ci", "invalid"
	r := gateResult{bench: sb, finished: true, verified: true}
	if code, why := r.exit(); code != gateFail || !strings.Contains(why, "CellsInvalid") {
		t.Errorf("exit %d: %s", code, why)
	}
	j, c := reports(t, r)
	if s := j.Suites[0]; s.Errors != 1 || s.Failures != 0 || s.Cases[1].Error == nil || s.Cases[1].Error.Message != "counters disagree" {
		t.Errorf("junit: errors %d failures %d: %+v", s.Errors, s.Failures, s.Cases)
	}
	tests := c["results"].(map[string]any)["tests"].([]any)
	if second := tests[1].(map[string]any); second["status"] != "failed" || second["rawStatus"] != "Invalid" {
		t.Errorf("ctrf: %v", second)
	}
	checkCTRF(t, c)
}

// allowFailedCells lets failed cells pass: they are skipped, not failed, and the gate passes.
func TestGateAllowedCellsAreSkipped(t *testing.T) {
	cells := []sbv1.CellResult{
		{Index: 0, State: sbv1.CellValid, Repeats: 1, Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 1}},
		{Index: 1, State: sbv1.CellFailed, Message: "no node", Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 2}},
	}
	sb := sbtesting.DecidedBench(&sbv1.AcceptanceSpec{AllowFailedCells: true}, cells...)
	r := gateResult{bench: sb, finished: true, verified: true, files: 7}
	if code, why := r.exit(); code != gatePass {
		t.Fatalf("exit %d: %s", code, why)
	}
	j, c := reports(t, r)
	if s := j.Suites[0]; s.Failures != 0 || s.Skipped != 1 || s.Cases[1].Skipped == nil {
		t.Errorf("junit: %+v", s)
	}
	if got := checkCTRF(t, c); got["skipped"] != 1 || got["passed"] != 2 {
		t.Errorf("ctrf: %v", got)
	}
}

// A gate that gave up reports the cells not run as pending and its own step as an error.
func TestGateTimeoutReportsPendingCells(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Status.Phase = sbv1.PhaseRunning
	sb.Status.CellResults = sb.Status.CellResults[:4]
	meta.RemoveStatusCondition(&sb.Status.Conditions, sbv1.ConditionPassed)
	r := gateResult{bench: sb, problem: errors.New("timed out (--timeout): context deadline exceeded")}
	if code, why := r.exit(); code != gateNoVerdict || !strings.Contains(why, "timed out") {
		t.Errorf("exit %d: %s", code, why)
	}
	j, c := reports(t, r)
	// 4 cells passed, 5 pending, 2 rules pending, "bench finished" error, signature skipped
	if s := j.Suites[0]; s.Tests != 13 || s.Skipped != 8 || s.Errors != 1 || s.Failures != 0 {
		t.Errorf("junit: tests %d skipped %d errors %d failures %d", s.Tests, s.Skipped, s.Errors, s.Failures)
	}
	if got := checkCTRF(t, c); got["pending"] != 7 || got["failed"] != 1 || got["skipped"] != 1 || got["passed"] != 4 {
		t.Errorf("ctrf: %v", got)
	}
}

func TestGateExitCodes(t *testing.T) {
	passed := fixture.TCPSweep("ok", 1, false)
	notPassed := fixture.TCPSweep("bad", 1, true)
	failed := sbtesting.FinishedBench(sbv1.PhaseFailed, metav1.ConditionFalse)
	noVerdict := passed.DeepCopy()
	meta.RemoveStatusCondition(&noVerdict.Status.Conditions, sbv1.ConditionPassed)
	unreachable := errors.New("dial tcp: connection refused")
	for _, c := range []struct {
		name string
		r    gateResult
		want int
	}{
		{"passed and verified", gateResult{bench: passed, finished: true, verified: true}, gatePass},
		{"passed, a file not as signed", gateResult{bench: passed, finished: true, unsigned: errors.New("runs.csv differs")}, gateFail},
		{"passed, bucket out of reach", gateResult{bench: passed, finished: true, problem: unreachable}, gateNoVerdict},
		{"passed, nothing downloaded", gateResult{bench: passed, finished: true}, gateNoVerdict},
		{"not passed, verified", gateResult{bench: notPassed, finished: true, verified: true}, gateFail},
		{"not passed, bucket out of reach", gateResult{bench: notPassed, finished: true, problem: unreachable}, gateFail},
		{"phase Failed", gateResult{bench: failed, finished: true}, gateNoVerdict},
		{"completed without a verdict", gateResult{bench: noVerdict, finished: true, verified: true}, gateNoVerdict},
		{"timed out", gateResult{bench: passed, problem: errors.New("timed out")}, gateNoVerdict},
		{"never created", gateResult{problem: errors.New("bench.yaml: no such file")}, gateNoVerdict},
	} {
		if got, why := c.r.exit(); got != c.want {
			t.Errorf("%s: exit %d (%s), want %d", c.name, got, why, c.want)
		}
	}
}

func TestGateReadsOneBench(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sb, err := readBench(filepath.Join("..", "..", "config", "samples", "tcp-sweep.yaml"))
	if err != nil || sb.Name != "tcp-sweep" || len(sb.Spec.Acceptance.Rules) != 2 {
		t.Fatalf("the sample: %v", err)
	}
	head := "apiVersion: spiralbench.io/v1alpha1\nkind: SpiralBench\n"
	for file, want := range map[string]string{
		write("typo.yaml", head+"metadata: {name: a}\nspec: {transport: TCP, matrix: {preset: Sweep}, acceptanse: {}}\n"): "acceptanse",
		write("two.yaml", "---\n"+head+"metadata: {name: a}\n---\n"+head+"metadata: {name: b}\n"):                         "2 YAML documents",
		write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"):                                             "not a SpiralBench",
		write("anon.yaml", head+"spec: {transport: TCP}\n"):                                                               "no metadata.name",
	} {
		if _, err := readBench(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", filepath.Base(file), err, want)
		}
	}
	if sb, err := readBench(write("gen.yaml", "---\n"+head+"metadata: {generateName: ci-}\nspec: {transport: TCP}\n")); err != nil || sb.GenerateName != "ci-" {
		t.Errorf("generateName: %v", err)
	}

	sb = &sbv1.SpiralBench{}
	if placeBench(sb, "ci", false); sb.Namespace != "ci" {
		t.Errorf("no namespace in the file: %q", sb.Namespace)
	}
	sb.Namespace = "lab"
	if err := placeBench(sb, "default", false); err != nil || sb.Namespace != "lab" {
		t.Errorf("the file's namespace, -n unset: %v %q", err, sb.Namespace)
	}
	if err := placeBench(sb, "ci", true); err == nil {
		t.Error("the file's namespace against another -n must be refused")
	}
}

func TestGateRunFolder(t *testing.T) {
	run := "s3://results/ci/bench/tcp-sweep/20261124-0300-abc/"
	got, err := runFolder(&sbv1.Artifacts{URIs: []string{run + "runs.csv", run + "plots/rx.svg", run + "SIGNATURE.json"}})
	if err != nil || got != run {
		t.Errorf("%q %v", got, err)
	}
	if _, err := runFolder(&sbv1.Artifacts{}); err == nil {
		t.Error("no objects")
	}
	if _, err := runFolder(&sbv1.Artifacts{URIs: []string{"s3://a/x/runs.csv", "s3://b/y/runs.csv"}}); err == nil {
		t.Error("objects of two buckets share no run folder")
	}
}
