package report

import (
	"bytes"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The table's last column says what bounded each cell's headline figure (pkg/explain's Short).
func TestTableSaysWhatBoundedEachCell(t *testing.T) {
	sb := fixture.TCPSweep("tcp", 1, true)
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	var out bytes.Buffer
	if err := WriteTable(&out, sb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(lines[0], "REPEATS  SPREAD %  BOUND BY") {
		t.Errorf("header %q", lines[0])
	}
	for _, want := range []string{"0.98 of 99.00 Gb/s (Ethernet)", "Failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	sb.Status.Environment = nil
	out.Reset()
	_ = WriteTable(&out, sb)
	if !strings.Contains(out.String(), "unknown: no environment recorded") {
		t.Errorf("without an environment:\n%s", out.String())
	}
}
