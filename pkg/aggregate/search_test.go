package aggregate

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestRepeatsGiveTheMeanAndStdOfTheFoundRates(t *testing.T) {
	pdr := func(v int64) *int64 { return &v }
	cell := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{
		{State: sbv1.CellValid, Search: &sbv1.SearchResult{NDRMbps: 9000, PDRMbps: pdr(9500)}},
		{State: sbv1.CellValid, Search: &sbv1.SearchResult{NDRMbps: 9400, PDRMbps: pdr(9700)}},
		{State: sbv1.CellValid, Search: &sbv1.SearchResult{NDRMbps: 0, NDRBelowLower: true, PDRMbps: pdr(0)}},
	}}
	Fill(&cell)
	s := cell.Search
	if s == nil {
		t.Fatal("no search statistics")
	}
	// mean of 9000, 9400, 0 = 6133; sample std = 5315
	if s.NDRMbps.Mean != 6133 || s.NDRMbps.StdDev != 5315 || s.BelowLower != 1 || s.PDRMbps == nil || s.PDRMbps.Mean != 6400 {
		t.Errorf("search statistics = %+v (pdr %+v)", s, s.PDRMbps)
	}
	plain := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{{State: sbv1.CellValid, RXMbps: 5}}}
	Fill(&plain)
	if plain.Search != nil {
		t.Errorf("a cell without a search has no search statistics: %+v", plain.Search)
	}
}
