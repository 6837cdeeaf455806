package figure

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Every view prints a unit the same way: the shown scale with the unit's decimals, a statistic
// as mean and spread, a rule's value shortest.
func TestUnitsPrintInTheirShownScale(t *testing.T) {
	cases := []struct{ got, want string }{
		{Mbps.Format(94123), "94.12"},
		{Mbps.FormatPrec(2500, -1), "2.5"},
		{Mbps.FormatPrec(2500, 3), "2.500"},
		{Mbps.FormatStat(&sbv1.Statistic{Mean: 94000, StdDev: 1234}, " ± ", "-"), "94.00 ± 1.23"},
		{Mbps.FormatStat(nil, "±", "-"), "-"},
		{PacketsPerSecond.FormatStat(&sbv1.Statistic{Mean: 1_500_000, StdDev: 10_000}, "±", "-"), "1.50±0.01"},
		{MilliPercent.Format(42500), "42.5"},
		{PPM.Format(12345), "1.23"},
		{PPM.FormatPrec(12345, 4), "1.2345"},
		{Nanoseconds.Format(34567), "34.57"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Every figure of the table has a unit a view can scale and label.
func TestEveryFigureHasAUnit(t *testing.T) {
	for _, name := range Names() {
		f, _ := Lookup(name)
		if f.Unit.Name == "" || f.Unit.Shown == "" || f.Unit.Scale <= 0 {
			t.Errorf("%s: unit %+v", name, f.Unit)
		}
		if f.Stat != nil && f.Cell == nil {
			t.Errorf("%s has a statistic but no cell reader", name)
		}
	}
}

// A statistic figure reads its exact integer mean, and says when the cell lacks it.
func TestStatisticFiguresReadTheExactMean(t *testing.T) {
	c := &sbv1.CellResult{RXMbps: &sbv1.Statistic{Mean: 1<<62 + 1, StdDev: 3}}
	if m, ok := Rx.Mean(c); !ok || m != 1<<62+1 {
		t.Errorf("Rx.Mean = %d, %v", m, ok)
	}
	if _, ok := Tx.Mean(c); ok {
		t.Error("Tx.Mean of a cell without TX")
	}
	if _, ok := Loss.Mean(c); ok {
		t.Error("Loss has no statistic")
	}
	if got := PDR.StatText(c, " ± ", "-"); got != "-" {
		t.Errorf("PDR of a cell without a search = %q", got)
	}
}
