package compare

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Welch is the outcome of Welch's unequal-variances t-test of two samples.
type Welch struct {
	// T is the statistic (mean(b) - mean(a)) / sqrt(var(a)/na + var(b)/nb).
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom.
	DF float64
	// P is the two-sided p-value.
	P float64
	// OK is false when either sample has fewer than two values: no test is possible.
	OK bool
}

// WelchTest compares sample b against sample a. Two samples without spread are told apart
// exactly: equal means give P 1, different means P 0 (repeats that agree to the last digit
// differ for certain).
func WelchTest(a, b []float64) Welch {
	if len(a) < 2 || len(b) < 2 {
		return Welch{}
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	sa, sb := va/na, vb/nb
	se := math.Sqrt(sa + sb)
	if se == 0 {
		if ma == mb {
			return Welch{T: 0, DF: na + nb - 2, P: 1, OK: true}
		}
		return Welch{T: math.Copysign(math.Inf(1), mb-ma), DF: na + nb - 2, P: 0, OK: true}
	}
	t := (mb - ma) / se
	df := (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return Welch{T: t, DF: df, P: 2 * dist.Survival(math.Abs(t)), OK: true}
}
