package contract

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// A fleet's facts pod runs the real data plane with its arguments (the message to a file here,
// not /dev/termination-log): the facts-only mode ends at once and leaves an environment message
// that fits a termination message and fleet.FactsCapture reads. On a machine without NVML the capture lists no GPUs, which the
// judge reads as not known.
func TestFactsPodArgumentsCaptureTheHost(t *testing.T) {
	binary := dataplaneBinary(t)
	args := fleet.FactsPod("p", "ns", "node", "img", nil).Spec.Containers[0].Args
	out := filepath.Join(t.TempDir(), "termination-log")
	run := append([]string(nil), args...)
	for i := range run {
		if run[i] == "/dev/termination-log" {
			run[i] = out
		}
	}
	if b, err := exec.Command(binary, run...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", run, err, b)
	}
	msg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(msg) > 4096 {
		t.Errorf("message of %d bytes: past a termination message's 4 KiB", len(msg))
	}
	h, err := fleet.FactsCapture(string(msg))
	if err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	if got := fleet.FactsBetweenRounds(h, h, 0); len(got) != 0 {
		t.Errorf("the host judged against itself: %+v", got)
	}
}
