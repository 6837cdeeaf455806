// Package lib tests the shell helpers sourced by the hack/ scripts.
package lib

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runPhases runs script (bash, errexit and pipefail on, hack/lib/phase.sh sourced) with the logs
// in a temp dir; it returns stdout, stderr, the exit status and the log directory.
func runPhases(t *testing.T, script string) (stdout, stderr string, rc int, logs string) {
	t.Helper()
	helper, err := filepath.Abs("phase.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logs = filepath.Join(dir, "logs")
	cmd := exec.Command("bash", "-c", "set -euo pipefail; source \"$PHASE_HELPER\"\n"+script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PHASE_HELPER=" + helper,
		"PHASE_LOG_DIR=" + logs, "SPIRALBENCH_CACHE=/cache/spiralbench"}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		rc = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), rc, logs
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines asserts that got holds each pattern, one whole line each, in this order.
func lines(t *testing.T, got string, patterns ...string) {
	t.Helper()
	rest := got
	for _, p := range patterns {
		loc := regexp.MustCompile("(?m)^" + p + "$").FindStringIndex(rest)
		if loc == nil {
			t.Fatalf("no line %q (in order) in:\n%s", p, got)
		}
		rest = rest[loc[1]:]
	}
}

// A succeeding phase then a failing one: each says its number, what it is and whether it is
// one-time; the details go to the log, not the terminal; the failure names the phase, its exit
// status and that phase's own last lines, and the script stops with that status.
func TestPhaseSucceedsThenFails(t *testing.T) {
	stdout, stderr, rc, logs := runPhases(t, `
phase_init demo 3
fetch() { echo "go: downloading example.com/m v1.0.0"; echo "compiler warning" >&2; }
build() { echo "first step"; (exit 3); echo "after the failing step"; }
phase_run "fetch the modules" once fetch
phase_run "build the thing" every build
echo "the script went on"
`)
	log := filepath.Join(logs, "demo.log")
	if rc != 3 {
		t.Errorf("exit status %d, want the failing phase's 3", rc)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing: the details belong in the log", stdout)
	}
	lines(t, stderr,
		"demo: 3 phases; details in "+regexp.QuoteMeta(log),
		`==> \[1/3\] fetch the modules \(one-time: cached under /cache/spiralbench\)`,
		`    \[1/3\] done in [01] s`,
		`==> \[2/3\] build the thing \(every run\)`,
		`!!! \[2/3\] FAILED \(exit 3\) after [01] s: build the thing`,
		`--- the phase's last 40 lines of output:`,
		`first step`,
		`--- build the thing failed; the whole log: `+regexp.QuoteMeta(log))
	for _, absent := range []string{"go: downloading", "compiler warning", "after the failing step", "the script went on", "\x1b"} {
		if strings.Contains(stderr, absent) {
			t.Errorf("output has %q:\n%s", absent, stderr)
		}
	}
	lines(t, readLog(t, log),
		`==== \[1/3\] fetch the modules \(one-time: cached under /cache/spiralbench\) .*`,
		"go: downloading example.com/m v1.0.0",
		"compiler warning",
		`==== \[2/3\] build the thing \(every run\) .*`,
		"first step")
	if strings.Contains(readLog(t, log), "after the failing step") {
		t.Error("the phase went on after a failing command: errexit was off inside it")
	}
}

// The tail shows only the failing phase's lines, PHASE_TAIL_LINES of them.
func TestPhaseFailureTailIsTheFailingPhasesEnd(t *testing.T) {
	_, stderr, rc, _ := runPhases(t, `
phase_init t 2
PHASE_TAIL_LINES=2
phase_run "quiet" every echo "an earlier phase's line"
phase_run "noisy" every bash -c 'for i in 1 2 3 4; do echo "line $i"; done; exit 5'
`)
	if rc != 5 {
		t.Errorf("exit status %d, want 5", rc)
	}
	lines(t, stderr, `!!! \[2/2\] FAILED \(exit 5\) .*`, `--- the phase's last 2 lines of output:`, "line 3", "line 4", `--- noisy failed; .*`)
	for _, absent := range []string{"line 2", "an earlier phase's line"} {
		if strings.Contains(stderr, absent) {
			t.Errorf("the tail has %q:\n%s", absent, stderr)
		}
	}
}

// A script the run starts joins its count and log; a script run inside a phase only adds a
// line to the log. The summary has every counted phase and the total.
func TestPhaseJoinNestAndSummary(t *testing.T) {
	child := filepath.Join(t.TempDir(), "child.sh")
	if err := os.WriteFile(child, []byte("set -euo pipefail; source \"$PHASE_HELPER\"\nphase_init child 9\nphase_run \"child work\" every echo child-output\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, rc, logs := runPhases(t, `
phase_init parent 3
phase_run "first" every true
bash `+child+`
phase_run "wraps the child" every bash `+child+`
phase_summary >&2
`)
	if rc != 0 {
		t.Fatalf("exit status %d:\n%s", rc, stderr)
	}
	lines(t, stderr,
		`==> \[1/3\] first \(every run\)`,
		`==> \[2/3\] child work \(every run\)`,
		`==> \[3/3\] wraps the child \(every run\)`,
		`    \[3/3\] done in [01] s`,
		"== time per phase:",
		`  +[01] s  first`, `  +[01] s  child work`, `  +[01] s  wraps the child`, `  +[0-9] s  total`)
	if strings.Contains(stderr, "child: ") || strings.Contains(stderr, "-> child work") {
		t.Errorf("the child started its own run or printed a nested line to the terminal:\n%s", stderr)
	}
	lines(t, readLog(t, filepath.Join(logs, "parent.log")), "child-output", `==== \[3/3\] wraps the child .*`, `  -> child work \(every run\)`, "child-output")
}

// A script that set -e ends inside a phase whose output stays on the terminal: the EXIT trap
// names that phase as failed, prints the summary and keeps the status.
func TestPhaseExitNamesTheOpenPhase(t *testing.T) {
	_, stderr, rc, _ := runPhases(t, `
phase_init t 2
trap 'phase_exit $?' EXIT
phase_run "built" once true
phase_begin "the bench" every
echo "bench output" >&2
(exit 4)
phase_end 0
`)
	if rc != 4 {
		t.Errorf("exit status %d, want 4", rc)
	}
	lines(t, stderr, "bench output", `!!! \[2/2\] FAILED \(exit 4\) after [01] s: the bench`, `--- the bench failed; .*`,
		"== time per phase:", `  +[01] s  built`, `  +[01] s  the bench`, `  +[0-9] s  total`)
	if strings.Contains(stderr, "last 40 lines") {
		t.Errorf("a tail for a phase whose output was on the terminal:\n%s", stderr)
	}
}
