package plots

import (
	"math"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// The throughput chart carries the ceiling where the bench records the NIC, and draws it.
func TestThroughputChartDrawsTheCeiling(t *testing.T) {
	sb := fixture.TCPSweep("tcp", 1, true)
	if c := chart(t, Charts(sb), "throughput-gbps"); len(c.Ceiling) != 0 {
		t.Errorf("a ceiling without NIC facts: %v", c.Ceiling)
	}
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	c := chart(t, Charts(sb), "throughput-gbps")
	if len(c.Ceiling) != 3 { // 1000 B, 8000 B, 1 MiB
		t.Fatalf("ceiling %v", c.Ceiling)
	}
	for _, p := range c.Ceiling {
		if math.Abs(p.Y-99.004) > 0.001 {
			t.Errorf("ceiling at %v: %v Gb/s, want 99.004", p.X, p.Y)
		}
	}
	if _, _, _, yMax := c.Range(); yMax < 99 {
		t.Errorf("the Y range ends at %v, under the ceiling", yMax)
	}
	svg, err := c.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if !svgTexts(t, svg)["ceiling"] {
		t.Error("the legend lacks the ceiling")
	}
}
