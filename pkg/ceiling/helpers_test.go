package ceiling

import (
	"math"
	"testing"
)

// near fails unless got is within 1e-6 relative (or 1e-9 absolute) of want.
func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > math.Max(1e-9, 1e-6*math.Abs(want)) {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}
