package htmlreport

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The cells table says what bounded each cell, with the ceiling's arithmetic as its tooltip.
func TestCellsTableSaysWhatBoundedEachCell(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, true)
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	page, err := Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for _, want := range []string{"<th>bound by</th>",
		`title="100 Gb/s Ethernet of eth1 at 0.98 of 99.00 Gb/s; ceiling: 100 Gb/s Ethernet of eth1: 100 Gb/s Ethernet, TCP segments of MTU 9000 (MSS 8948 B, 32 B TCP header): 9038 B on the wire">0.98 of 99.00 Gb/s (Ethernet)</td>`,
		`9038 B on the wire">–</td><td class="text reason">client pod: OOMKilled`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	sb.Status.Environment = nil
	if page, _ := Render(sb); !strings.Contains(string(page), ">unknown: no environment recorded</td>") {
		t.Error("a cell without an environment does not say its ceiling is unknown")
	}
}
