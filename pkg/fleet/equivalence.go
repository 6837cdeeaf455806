package fleet

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// EquivalenceDecision is what a driver-upgrade gate may conclude from one class's figure.
type EquivalenceDecision string

const (
	// Equivalent: the after mean is shown to lie within ±margin of the before mean
	// (both one-sided tests reject; the 1-2α interval lies inside ±margin).
	Equivalent EquivalenceDecision = "Equivalent"
	// Worse: the after mean is shown to be worse than the before mean by more than the
	// margin (the 1-2α interval lies entirely beyond -margin).
	Worse EquivalenceDecision = "Worse"
	// Undecided: neither is shown; Reason says why and MoreNeeded how to get further.
	Undecided EquivalenceDecision = "Undecided"
)

// CannotDecideWithMoreAfter is MoreNeeded's value when adding 'after' samples alone cannot
// show equivalence: the observed difference is at or beyond the margin, or the 'before'
// samples are too few or too noisy on their own.
const CannotDecideWithMoreAfter = -1

// equivalencePower is the power MoreNeeded plans for.
const equivalencePower = 0.8

// EquivalenceResult is a two one-sided tests (TOST) comparison of a canary cohort's figure
// after an upgrade with the same class's figure before it. Differences are oriented so that
// negative means worse whatever the figure's direction. When the inputs allow no test
// (Reason says why) T, DF, the p-values and the interval are NaN.
type EquivalenceResult struct {
	// NBefore and NAfter are the sample counts.
	NBefore, NAfter int
	// MeanBefore and MeanAfter are the sample means, in the figure's unit.
	MeanBefore, MeanAfter float64
	// MarginPercent and Alpha are the inputs, kept so that a result explains itself.
	MarginPercent, Alpha float64
	// RelativeDiffPercent is (after-before)/|before| in percent, negated for figures where
	// lower is better: negative = worse.
	RelativeDiffPercent float64
	// T is Welch's t of the oriented difference (no margin shift); DF its Welch–Satterthwaite
	// degrees of freedom; StdErr the standard error of the oriented difference.
	T, DF, StdErr float64
	// PLower is the p-value of H0 "difference <= -margin" (after worse by the margin or
	// more); PUpper of H0 "difference >= +margin". P = max(PLower, PUpper) is the TOST p.
	PLower, PUpper, P float64
	// CILowPercent and CIHighPercent bound the (1-2α) confidence interval of
	// RelativeDiffPercent; the TOST decision at α is exactly "inside ±margin".
	CILowPercent, CIHighPercent float64
	// Decision is Equivalent, Worse or Undecided.
	Decision EquivalenceDecision
	// Reason explains an Undecided decision (empty otherwise).
	Reason string
	// MoreNeeded is how many more 'after' samples would give the test power 0.8 to show
	// equivalence at the observed spreads and difference; 0 when decided,
	// CannotDecideWithMoreAfter when more 'after' samples alone cannot do it.
	MoreNeeded int
}

// Equivalence runs TOST with Welch's unequal-variance t on the difference of means: is
// mean(after) within ±marginPercent of mean(before)? Each one-sided test is at level alpha,
// so the decision matches a (1-2α) confidence interval lying inside ±margin.
//
// The margin is converted to the figure's unit with the observed before mean, which is
// then treated as known: the canary cohort is small and the before pool large, so the
// denominator's error is small next to the margin; its error still enters the difference's
// standard error.
func Equivalence(before, after []float64, marginPercent float64, higherIsBetter bool, alpha float64) EquivalenceResult {
	r := EquivalenceResult{NBefore: len(before), NAfter: len(after), MarginPercent: marginPercent, Alpha: alpha,
		PLower: math.NaN(), PUpper: math.NaN(), P: math.NaN(), T: math.NaN(), DF: math.NaN(),
		CILowPercent: math.NaN(), CIHighPercent: math.NaN(), Decision: Undecided}
	switch {
	case !(marginPercent > 0) || math.IsInf(marginPercent, 0):
		r.Reason = "margin must be a positive percentage"
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	case !(alpha > 0 && alpha < 0.5):
		r.Reason = "alpha must lie in (0, 0.5)"
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	case !allFinite(before) || !allFinite(after):
		r.Reason = "samples hold NaN or Inf"
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	case len(before) < 2:
		r.Reason = fmt.Sprintf("%d before samples: need at least 2 for a variance", len(before))
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	case len(after) < 2:
		r.MeanBefore = stat.Mean(before, nil)
		if len(after) == 1 {
			r.MeanAfter = after[0]
		}
		r.Reason = fmt.Sprintf("%d after samples: need at least 2 for a variance", len(after))
		r.MoreNeeded = 2 - len(after)
		return r
	}

	meanB, varB := stat.MeanVariance(before, nil)
	meanA, varA := stat.MeanVariance(after, nil)
	r.MeanBefore, r.MeanAfter = meanB, meanA
	if meanB == 0 {
		r.Reason = "before mean is zero: a relative margin is undefined"
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	}
	scale := 100 / math.Abs(meanB) // unit -> percent of the before mean
	diff := meanA - meanB
	if !higherIsBetter {
		diff = -diff
	}
	r.RelativeDiffPercent = diff * scale
	if varA == 0 && varB == 0 {
		r.Reason = "both samples have zero variance: no spread to test against"
		r.MoreNeeded = CannotDecideWithMoreAfter
		return r
	}

	seB2, seA2 := varB/float64(len(before)), varA/float64(len(after))
	se := math.Sqrt(seB2 + seA2)
	df := welchDF(seB2, float64(len(before)), seA2, float64(len(after)))
	margin := marginPercent / scale // in the figure's unit
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	r.StdErr, r.DF, r.T = se, df, diff/se
	r.PLower = dist.Survival((diff + margin) / se)
	r.PUpper = dist.CDF((diff - margin) / se)
	r.P = math.Max(r.PLower, r.PUpper)
	half := dist.Quantile(1-alpha) * se * scale
	r.CILowPercent, r.CIHighPercent = r.RelativeDiffPercent-half, r.RelativeDiffPercent+half

	switch {
	case r.PLower < alpha && r.PUpper < alpha:
		r.Decision = Equivalent
	case r.CIHighPercent < -marginPercent:
		r.Decision = Worse
	case r.CILowPercent > marginPercent:
		// Not a regression, but not equivalence either; more samples will not change that.
		r.Reason = fmt.Sprintf("better than +%g%% beyond doubt: not equivalent, not worse", marginPercent)
		r.MoreNeeded = 0
	default:
		r.Reason = fmt.Sprintf("%.3g%% [%.3g%%, %.3g%%] is neither inside nor beyond ±%g%% at alpha %g",
			r.RelativeDiffPercent, r.CILowPercent, r.CIHighPercent, marginPercent, alpha)
		r.MoreNeeded = moreAfterForEquivalence(math.Abs(diff), margin, seB2, varA, len(after), alpha)
	}
	return r
}

// welchDF is the Welch–Satterthwaite degrees of freedom from the squared standard errors
// (variance/n) of two samples and their sizes.
func welchDF(se1sq, n1, se2sq, n2 float64) float64 {
	return (se1sq + se2sq) * (se1sq + se2sq) / (se1sq*se1sq/(n1-1) + se2sq*se2sq/(n2-1))
}

// moreAfterForEquivalence is the normal-approximation TOST sample size (Chow, Shao & Wang,
// Sample Size Calculations in Clinical Research, two-sample equivalence:
// SE <= (margin-|diff|)/(z_{1-α} + z_{1-β/2})), solved for the 'after' count with the
// 'before' count fixed and unequal variances: varA/nA + varB/nB <= SE². z_{1-β/2} is exact
// for a zero difference and conservative otherwise. It answers at least 1 because it is
// only asked when the test is still undecided.
func moreAfterForEquivalence(absDiff, margin, seBefore2, varAfter float64, nAfter int, alpha float64) int {
	if absDiff >= margin {
		return CannotDecideWithMoreAfter
	}
	z := distuv.UnitNormal.Quantile(1-alpha) + distuv.UnitNormal.Quantile(1-(1-equivalencePower)/2)
	seNeeded := (margin - absDiff) / z
	room := seNeeded*seNeeded - seBefore2 // what the 'after' mean's variance may use
	if room <= 0 {
		return CannotDecideWithMoreAfter
	}
	need := math.Ceil(varAfter / room)
	if need > math.MaxInt32 {
		return CannotDecideWithMoreAfter
	}
	return max(int(need)-nAfter, 1)
}

func allFinite(values []float64) bool {
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
