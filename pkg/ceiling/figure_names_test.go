package ceiling_test

import (
	"testing"

	"github.com/spiralbench/spiralbench/pkg/ceiling"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// The ceilings name pkg/figure's figures and units.
func TestFigureNamesAndUnits(t *testing.T) {
	for name, unit := range map[string]string{
		ceiling.FigureRx: ceiling.UnitMbps, ceiling.FigureCopyH2D: ceiling.UnitMBps,
		ceiling.FigureCopyD2H: ceiling.UnitMBps, ceiling.FigureNCCLBusbw: ceiling.UnitMBps,
	} {
		if got := figure.UnitOf(name); got != unit {
			t.Errorf("figure %s: unit %q, want %q", name, got, unit)
		}
	}
}
