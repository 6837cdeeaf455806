package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// A bench argument may be NAMESPACE/NAME: compare sets two namespaces' runs side by side, and
// results, watch, report and get read a bench of another namespace than -n's.
func TestBenchArgumentsTakeANamespace(t *testing.T) {
	requireEnv(t)
	here, there := namespace(t), namespace(t)
	create(t, here, fixture.TCPSweep("tcp-sweep", 1, false))
	create(t, there, fixture.TCPSweep("tcp-sweep", 1, true)) // 1 MiB x 4 pairs failed

	out, err := sbctl(t, here, "compare", "tcp-sweep", there+"/tcp-sweep")
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != exitWorse || !strings.Contains(out, "A: "+here+"/tcp-sweep@") || !strings.Contains(out, "B: "+there+"/tcp-sweep@") {
		t.Errorf("compare across namespaces: %v, want exit %d\n%s", err, exitWorse, out)
	}
	if out, err := sbctl(t, here, "compare", there+"/tcp-sweep", here+"/tcp-sweep"); err != nil || !strings.Contains(out, "A: "+there+"/tcp-sweep@") {
		t.Errorf("both as NAMESPACE/NAME: %v\n%s", err, out)
	}
	if out, err := sbctl(t, here, "results", there+"/tcp-sweep"); err != nil || !strings.Contains(out, "SpiralBench "+there+"/tcp-sweep:") {
		t.Errorf("results: %v\n%s", err, out)
	}
	if out, err := sbctl(t, here, "watch", there+"/tcp-sweep", "--live=false"); !errors.As(err, &ec) || ec.code != exitNotPassed ||
		!strings.Contains(out, "SpiralBench "+there+"/tcp-sweep:") {
		t.Errorf("watch: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if out, err := sbctl(t, here, "report", there+"/tcp-sweep", "-o", filepath.Join(dir, "report")); err != nil {
		t.Errorf("report: %v\n%s", err, out)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report", "report.html")); err != nil || !strings.Contains(string(page), ">"+there+"/tcp-sweep</h1>") {
		t.Errorf("report.html is not the other namespace's bench: %v", err)
	}
	if out, err := sbctl(t, here, "get", there+"/tcp-sweep", "-o", filepath.Join(dir, "run")); err != nil || !strings.Contains(out, "  runs.csv\n") {
		t.Errorf("get: %v\n%s", err, out)
	}
	for _, bad := range []string{there + "/tcp-sweep/x", "/tcp-sweep", there + "/"} {
		if out, err := sbctl(t, here, "results", bad); err == nil || !strings.Contains(err.Error(), "write NAME or NAMESPACE/NAME") {
			t.Errorf("results %s: %v\n%s", bad, err, out)
		}
	}
}
