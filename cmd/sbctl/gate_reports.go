package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// The gate's two test-report formats, rendered from the same checks so they always agree:
// JUnit XML, which every CI system displays, and CTRF JSON (https://ctrf.io), which NVIDIA's
// AI Cluster Runtime validation emits and its tooling reads.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// benchName is the bench as reports title it; "sbctl gate" when it was never created.
func benchName(r gateResult) string {
	if r.bench == nil {
		return "sbctl gate"
	}
	return r.bench.Namespace + "/" + r.bench.Name
}

// benchSpan is the bench's run, from its first cell to its end (or now, unfinished).
func benchSpan(r gateResult, now time.Time) (time.Time, time.Time) {
	start, stop := now, now
	if r.bench != nil && r.bench.Status.StartTime != nil {
		start = r.bench.Status.StartTime.Time
		if t := r.bench.Status.CompletionTime; t != nil {
			stop = t.Time
		}
	}
	return start, stop
}

// properties are what a reader of the report needs to tell runs apart: the run, its verdict
// and the environment (driver, firmware, kernel, image) it was measured on.
func properties(r gateResult) []junitProperty {
	sb := r.bench
	if sb == nil {
		return nil
	}
	props := []junitProperty{{"bench", sb.Namespace + "/" + sb.Name}, {"transport", string(sb.Spec.Transport)},
		{"phase", string(sb.Status.Phase)}, {"runID", report.RunID(sb)}}
	if p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed); p != nil {
		props = append(props, junitProperty{"passed", fmt.Sprintf("%s (%s)", p.Status, p.Reason)})
	}
	if e := sb.Status.Environment; e != nil {
		for _, kv := range [][2]string{{"gpuModel", e.GPUModel}, {"gpuDriver", e.GPUDriver}, {"nicDriver", e.NICDriver},
			{"nicFirmware", e.NICFirmware}, {"kernel", e.Kernel}, {"image", e.Image}, {"node", e.Node}} {
			if kv[1] != "" {
				props = append(props, junitProperty{kv[0], kv[1]})
			}
		}
	}
	if r.runDir != "" {
		props = append(props, junitProperty{"download", r.runDir})
	}
	return props
}

// junitReport is one testsuite named after the bench: a testcase per cell (failure when it
// Failed, error when Invalid), per rule (its measured value and threshold in the message),
// the baseline, and the gate's own steps. Classnames group them as CI views show packages.
func junitReport(r gateResult, checks []check, now time.Time) junitSuites {
	start, stop := benchSpan(r, now)
	suite := junitSuite{Name: benchName(r), Time: seconds(stop.Sub(start)), Properties: properties(r)}
	if r.bench != nil && r.bench.Status.StartTime != nil {
		suite.Timestamp = start.UTC().Format("2006-01-02T15:04:05")
	}
	for _, k := range checks {
		tc := junitCase{Name: k.name, Classname: "spiralbench." + strings.ReplaceAll(suite.Name, "/", ".") + "." + k.suite, Time: seconds(k.took), SystemOut: k.detail}
		problem := &junitProblem{Message: k.message, Type: k.raw, Text: k.message}
		switch k.status {
		case checkFailed:
			tc.Failure, suite.Failures = problem, suite.Failures+1
		case checkError:
			tc.Error, suite.Errors = problem, suite.Errors+1
		case checkSkipped, checkPending:
			tc.Skipped, suite.Skipped = &junitProblem{Message: k.message}, suite.Skipped+1
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	return junitSuites{Name: "sbctl gate", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
}

// ctrfSpecVersion is the CTRF specification version the document follows.
const ctrfSpecVersion = "0.0.0"

type ctrfReport struct {
	ReportFormat string      `json:"reportFormat"`
	SpecVersion  string      `json:"specVersion"`
	Timestamp    string      `json:"timestamp,omitempty"`
	GeneratedBy  string      `json:"generatedBy,omitempty"`
	Results      ctrfResults `json:"results"`
}

type ctrfResults struct {
	Tool        ctrfTool         `json:"tool"`
	Summary     ctrfSummary      `json:"summary"`
	Tests       []ctrfTest       `json:"tests"`
	Environment *ctrfEnvironment `json:"environment,omitempty"`
}

type ctrfTool struct {
	Name string `json:"name"`
}

type ctrfSummary struct {
	Tests   int   `json:"tests"`
	Passed  int   `json:"passed"`
	Failed  int   `json:"failed"`
	Skipped int   `json:"skipped"`
	Pending int   `json:"pending"`
	Other   int   `json:"other"`
	Suites  int   `json:"suites"`
	Start   int64 `json:"start"`
	Stop    int64 `json:"stop"`
}

type ctrfTest struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	Duration  int64    `json:"duration"`
	Start     int64    `json:"start,omitempty"`
	Stop      int64    `json:"stop,omitempty"`
	Suite     []string `json:"suite,omitempty"`
	Message   string   `json:"message,omitempty"`
	RawStatus string   `json:"rawStatus,omitempty"`
	Stdout    []string `json:"stdout,omitempty"`
}

type ctrfEnvironment struct {
	ReportName string            `json:"reportName,omitempty"`
	Healthy    bool              `json:"healthy"`
	Extra      map[string]string `json:"extra,omitempty"`
}

// ctrfDocument is the same checks as CTRF: CTRF has no "error", so an Invalid cell is failed
// with rawStatus Invalid (it fails the gate as a failed cell does).
func ctrfDocument(r gateResult, checks []check, now time.Time) ctrfReport {
	start, stop := benchSpan(r, now)
	code, _ := r.exit()
	res := ctrfResults{Tool: ctrfTool{Name: "sbctl"}, Tests: []ctrfTest{},
		Summary: ctrfSummary{Suites: 1, Start: start.UnixMilli(), Stop: stop.UnixMilli()}}
	env := &ctrfEnvironment{ReportName: benchName(r), Healthy: code == gatePass, Extra: map[string]string{}}
	for _, p := range properties(r) {
		env.Extra[p.Name] = p.Value
	}
	res.Environment = env
	for _, k := range checks {
		t := ctrfTest{Name: k.name, Duration: k.took.Milliseconds(), Suite: []string{benchName(r), k.suite},
			Message: k.message, RawStatus: k.raw}
		if !k.start.IsZero() {
			t.Start, t.Stop = k.start.UnixMilli(), k.start.Add(k.took).UnixMilli()
		}
		if k.detail != "" {
			t.Stdout = []string{k.detail}
		}
		switch k.status {
		case checkPassed:
			t.Status, res.Summary.Passed = "passed", res.Summary.Passed+1
		case checkFailed, checkError:
			t.Status, res.Summary.Failed = "failed", res.Summary.Failed+1
			if t.RawStatus == "" {
				t.RawStatus = string(k.status)
			}
		case checkSkipped:
			t.Status, res.Summary.Skipped = "skipped", res.Summary.Skipped+1
		case checkPending:
			t.Status, res.Summary.Pending = "pending", res.Summary.Pending+1
		default:
			t.Status, res.Summary.Other = "other", res.Summary.Other+1
		}
		res.Tests = append(res.Tests, t)
	}
	res.Summary.Tests = len(res.Tests)
	return ctrfReport{ReportFormat: "CTRF", SpecVersion: ctrfSpecVersion, Timestamp: now.UTC().Format(time.RFC3339),
		GeneratedBy: "sbctl gate", Results: res}
}

// writeReports writes the reports asked for; it is called on every way out of the gate, so a
// pipeline finds them even when the gate gave up.
func writeReports(r gateResult, junitPath, ctrfPath string, now time.Time) error {
	checks := gateChecks(r)
	if junitPath != "" {
		data, err := xml.MarshalIndent(junitReport(r, checks, now), "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(junitPath, append([]byte(xml.Header), append(data, '\n')...)); err != nil {
			return err
		}
	}
	if ctrfPath != "" {
		data, err := json.MarshalIndent(ctrfDocument(r, checks, now), "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(ctrfPath, append(data, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
