package e2e

import (
	"os/exec"
	"testing"
)

// The README's lines reach TestTheREADMEsCommandsWorkOnTheLocalCluster whole: the parser keeps
// each kubectl/sbctl line with its quotes and $(...) and cuts only a trailing comment, so every
// line it hands over is a complete bash command. Needs no stack.
func TestREADMECommandsAreWholeBashLines(t *testing.T) {
	commands := readmeCommands(t)
	if len(commands) < 10 {
		t.Fatalf("found %d kubectl/sbctl lines in README.md; the parser or the README broke", len(commands))
	}
	for _, line := range commands {
		if out, err := exec.Command("bash", "-n", "-c", line).CombinedOutput(); err != nil {
			t.Errorf("README line %q is not a whole bash command as parsed: %v\n%s", line, err, out)
		}
	}
}
