package acceptance

import "testing"

// Found by FuzzCompareBaseline (testdata/fuzz/FuzzCompareBaseline/product-overflows-int64):
// now*100 wrapped for large figures and a faster run was judged a regression.
func TestBaselineComparisonDoesNotWrap(t *testing.T) {
	for _, c := range []struct {
		now, base, limit int64
		want             bool
	}{
		{1 << 62, 1 << 61, 0, true},
		{1<<63 - 1, 1<<63 - 1, 5, true},
		{-1 << 63, 1, 5, false},
		{95000, 100000, 5, true},
		{94999, 100000, 5, false},
	} {
		if got := withinRegression(c.now, c.base, c.limit); got != c.want {
			t.Errorf("withinRegression(%d, %d, %d) = %v, want %v", c.now, c.base, c.limit, got, c.want)
		}
	}
}
