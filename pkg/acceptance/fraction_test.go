package acceptance

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// udpOver100GbE is a UDP bench whose one cell of 8000 B datagrams measured rx Mb/s over a
// ConnectX-7 at 100 Gb/s, MTU 9000. The wire carries each datagram in 8000 + 8 (UDP) + 20
// (IPv4) + 14 + 4 (Ethernet header, FCS) + 8 + 12 (preamble, inter-frame gap) = 8066 B, so
// the ceiling is 100000 x 8000 / 8066 = 99181.75 Mb/s of payload.
func udpOver100GbE(rx int64, nic sbv1.NICEnvironment) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{}
	sb.Spec.Transport = sbv1.TransportUDP
	sb.Spec.Topology.MTU = 9000
	sb.Status.Environment = &sbv1.Environment{EnvironmentDetail: sbv1.EnvironmentDetail{NICs: []sbv1.NICEnvironment{nic}}}
	sb.Status.CellResults = []sbv1.CellResult{cell(0, true, 8000, 1, rx, 0, sbv1.CellValid)}
	return sb
}

var cx7 = sbv1.NICEnvironment{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000}

func fractionRule(f string) sbv1.AcceptanceRule {
	return sbv1.AcceptanceRule{Name: "near-line-rate", Metric: sbv1.MetricRxMbps, MinFractionOfCeiling: f}
}

func TestFractionOfCeilingHoldsAndBreaksAtTheHandComputedCeiling(t *testing.T) {
	sb := udpOver100GbE(94000, cx7) // 94000 / 99181.75 = 0.948
	v := Judge(sb, []sbv1.AcceptanceRule{fractionRule("0.9")}, sb.Status.CellResults)
	if !v.Passed || !strings.Contains(v.Message, "cell 0 RxMbps 0.948 of 99.18 Gb/s (100 Gb/s Ethernet of eth1) >= 0.9") {
		t.Fatalf("0.948 of the ceiling against 0.9: %+v", v)
	}
	v = Judge(sb, []sbv1.AcceptanceRule{fractionRule("0.95")}, sb.Status.CellResults)
	if v.Passed || !strings.Contains(v.Message, "0.948 of 99.18 Gb/s") || !strings.Contains(v.Message, "want >= 0.95") {
		t.Fatalf("0.948 of the ceiling against 0.95: %+v", v)
	}
}

func TestFractionOfCeilingBreaksWhenTheCeilingIsUnknown(t *testing.T) {
	for name, nic := range map[string]sbv1.NICEnvironment{
		"no speed": {Interface: "eth1", Driver: "mlx5_core", MTU: 9000},
		"veth":     {Interface: "eth0", Driver: "veth", MTU: 9000},
	} {
		sb := udpOver100GbE(94000, nic)
		v := Judge(sb, []sbv1.AcceptanceRule{fractionRule("0.5")}, sb.Status.CellResults)
		if v.Passed || !strings.Contains(v.Message, "ceiling unknown: ") {
			t.Errorf("%s: a rule on an unknown ceiling must break, saying why: %+v", name, v)
		}
	}
	sb := udpOver100GbE(94000, cx7)
	sb.Status.Environment = nil
	if v := Judge(sb, []sbv1.AcceptanceRule{fractionRule("0.5")}, sb.Status.CellResults); v.Passed || !strings.Contains(v.Message, "no environment recorded") {
		t.Errorf("no environment: %+v", v)
	}
	if v := Judge(nil, []sbv1.AcceptanceRule{fractionRule("0.5")}, sb.Status.CellResults); v.Passed {
		t.Errorf("no bench: %+v", v)
	}
}

func TestFractionOfCeilingJudgesEachSelectedCellAndFailedCells(t *testing.T) {
	sb := udpOver100GbE(94000, cx7)
	sb.Status.CellResults = append(sb.Status.CellResults, cell(1, false, 8000, 1, 60000, 0, sbv1.CellValid))
	each := fractionRule("0.9")
	each.Cells.Scope = sbv1.CellScopeEach
	if v := Judge(sb, []sbv1.AcceptanceRule{each}, sb.Status.CellResults); v.Passed || !strings.Contains(v.Message, "cell 1 RxMbps 0.605") {
		t.Errorf("each cell: the second at 0.605 breaks it: %+v", v)
	}
	sb.Status.CellResults[1] = cell(1, false, 8000, 1, 0, 0, sbv1.CellFailed)
	if v := Judge(sb, []sbv1.AcceptanceRule{each}, sb.Status.CellResults); v.Passed || !strings.Contains(v.Message, "cell 1 failed") {
		t.Errorf("a failed cell breaks it: %+v", v)
	}
	sb.Status.CellResults[1] = cell(1, false, 8000, 1, 93000, 0, sbv1.CellValid)
	if v := Judge(sb, []sbv1.AcceptanceRule{each}, sb.Status.CellResults); !v.Passed || !strings.Contains(v.Message, "2 cells RxMbps >= 0.9 of their ceilings (lowest cell 1 RxMbps 0.938") {
		t.Errorf("both hold: %+v", v)
	}
}

func TestFractionRuleDecidesTheVerdict(t *testing.T) {
	sb := udpOver100GbE(60000, cx7)
	sb.Status.Cells.Total = 1
	sb.Spec.Run.Repeats = 3
	sb.Spec.Acceptance = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{fractionRule("0.8")}}
	if v := Decide(sb); v.Passed || v.Reason != sbv1.ReasonRulesBroken || !strings.Contains(v.Message, "0.605 of 99.18 Gb/s") {
		t.Fatalf("Decide: %+v", v)
	}
}

// A rule bounds a cell's spread over its repeats; a cell without one (under two Valid
// repeats) breaks it.
func TestARuleBoundsTheSpread(t *testing.T) {
	c := cell(0, true, 8000, 1, 1600, 0, sbv1.CellValid)
	c.Spread, c.Noisy = &sbv1.CellSpread{Figure: "RxMbps", CVMilliPercent: 84000}, true
	steady := sbv1.AcceptanceRule{Name: "steady", Metric: sbv1.MetricRxMbpsCVMilliPercent, Operator: sbv1.OperatorLessThanOrEqual, Value: 10000}
	if v := Judge(nil, []sbv1.AcceptanceRule{steady}, []sbv1.CellResult{c}); v.Passed || !strings.Contains(v.Message, "RxMbpsCVMilliPercent = 84000, want <= 10000") {
		t.Errorf("84 %% spread: %+v", v)
	}
	c.Spread.CVMilliPercent = 5000
	if v := Judge(nil, []sbv1.AcceptanceRule{steady}, []sbv1.CellResult{c}); !v.Passed {
		t.Errorf("5 %% spread: %+v", v)
	}
	c.Spread = nil
	if v := Judge(nil, []sbv1.AcceptanceRule{steady}, []sbv1.CellResult{c}); v.Passed || !strings.Contains(v.Message, "has no RxMbpsCVMilliPercent") {
		t.Errorf("no spread: %+v", v)
	}
}
