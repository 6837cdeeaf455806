package acceptance

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestNDRRulesReadTheSearch(t *testing.T) {
	searched := sbv1.CellResult{Index: 0, Repeats: 3, State: sbv1.CellValid,
		Search: &sbv1.SearchStatistics{NDRMbps: sbv1.Statistic{Mean: 96000, StdDev: 800}, PDRMbps: &sbv1.Statistic{Mean: 97500}}}
	for _, c := range []struct {
		m    sbv1.Metric
		want int64
	}{{sbv1.MetricNDRMbps, 96000}, {sbv1.MetricNDRMbpsStdDev, 800}, {sbv1.MetricPDRMbps, 97500}} {
		if got, ok := Value(c.m, searched); !ok || got != c.want {
			t.Errorf("%s = %d, %v; want %d", c.m, got, ok, c.want)
		}
	}
	if _, ok := Value(sbv1.MetricNDRMbps, sbv1.CellResult{Repeats: 3}); ok {
		t.Error("a cell without a search has no NDR")
	}
	noTolerance := searched
	noTolerance.Search = &sbv1.SearchStatistics{NDRMbps: sbv1.Statistic{Mean: 1}}
	if _, ok := Value(sbv1.MetricPDRMbps, noTolerance); ok {
		t.Error("a search without a tolerance has no PDR")
	}
}
