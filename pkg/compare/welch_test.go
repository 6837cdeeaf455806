package compare

import (
	"math"
	"testing"
)

// The reference values come from testdata/welch_reference.py, which computes t and the degrees
// of freedom from their definitions and the p-value by integrating Student's t density with
// Simpson's rule, without gonum. The first case is Wikipedia's Welch's t-test example
// (published as t = -2.46 for A1 - A2, df = 25.0, p = 0.021).
func TestWelchAgainstIndependentValues(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a, b     []float64
		t, df, p float64
	}{
		{"wikipedia-A1-A2",
			[]float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4},
			[]float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4},
			2.4553563983, 24.9885292902, 0.0213780015},
		{"three-repeats-slower", []float64{97.1, 96.4, 98.0}, []float64{91.2, 92.5, 90.7}, -8.0431634247, 3.9164957347, 0.0014170937},
		{"three-repeats-noise", []float64{97.1, 96.4, 98.0}, []float64{96.9, 97.8, 96.2}, -0.3053919591, 4.0000000000, 0.7753000699},
		{"unequal-n-and-spread", []float64{10.0, 10.2, 9.9, 10.1, 10.0}, []float64{9.1, 10.8, 9.5}, -0.4653983648, 2.0395892256, 0.6866205799},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := WelchTest(tc.a, tc.b)
			if !w.OK || math.Abs(w.T-tc.t) > 1e-8 || math.Abs(w.DF-tc.df) > 1e-8 || math.Abs(w.P-tc.p) > 1e-7 {
				t.Errorf("got t=%.10f df=%.10f p=%.10f ok=%v, want t=%.10f df=%.10f p=%.10f", w.T, w.DF, w.P, w.OK, tc.t, tc.df, tc.p)
			}
		})
	}
}

func TestWelchEdgeCases(t *testing.T) {
	if w := WelchTest([]float64{1}, []float64{1, 2}); w.OK {
		t.Errorf("one repeat must not be tested: %+v", w)
	}
	if w := WelchTest([]float64{5, 5, 5}, []float64{5, 5}); !w.OK || w.P != 1 {
		t.Errorf("identical constant samples: %+v, want p 1", w)
	}
	if w := WelchTest([]float64{5, 5, 5}, []float64{4, 4}); !w.OK || w.P != 0 || !math.IsInf(w.T, -1) {
		t.Errorf("different constant samples: %+v, want p 0, t -Inf", w)
	}
}
