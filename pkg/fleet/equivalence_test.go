package fleet

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// closeRel fails the test unless got is within 1e-6 relative of want.
func closeRel(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Abs(want) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

// The reference numbers come from scipy (ttest_ind with equal_var=False on the samples,
// and on 'after' shifted by ±margin for the one-sided p-values), printed by
// testdata/stats_reference.py:
//
//	/tmp/statsref/bin/python pkg/fleet/testdata/stats_reference.py
//
// Keep the datasets here and in the script the same.
func TestEquivalenceMatchesScipy(t *testing.T) {
	cases := []struct {
		name           string
		before, after  []float64
		margin         float64
		higherIsBetter bool
		alpha          float64
		tStat, df      float64
		pLower, pUpper float64
		ciLow, ciHigh  float64
		decision       EquivalenceDecision
		moreNeeded     int
	}{
		{"close", []float64{100.2, 99.8, 100.5, 99.6, 100.1, 100.3, 99.9, 100.0}, []float64{99.7, 100.4, 99.5, 100.1, 99.9},
			3, true, 0.05,
			-0.6973026534773935, 7.3588390145195195, 3.624762514449436e-07, 1.945901026161172e-07,
			-0.48039700442740635, 0.22052693945989907, Equivalent, 0},
		{"latency_worse", []float64{10.1, 9.9, 10.0, 10.2, 9.8, 10.0}, []float64{10.9, 11.1, 10.8, 11.0},
			5, false, 0.05,
			-10.969655114602922, 7.023121387283239, 0.9993772802760109, 3.2074361860710625e-07,
			-11.13994089184451, -7.860059108155475, Worse, 0},
		{"undecided", []float64{100.8, 99.1, 100.3, 98.7, 101.2, 99.6, 100.4, 99.9, 100.9, 99.2, 100.1, 99.8}, []float64{98.9, 101.6, 99.4},
			2, true, 0.05,
			-0.03882746609839536, 2.2944992668792072, 0.06634524443932616, 0.06256949712310711,
			-2.3339251590186287, 2.2672584923519365, Undecided, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Equivalence(c.before, c.after, c.margin, c.higherIsBetter, c.alpha)
			closeRel(t, "T", r.T, c.tStat)
			closeRel(t, "DF", r.DF, c.df)
			closeRel(t, "PLower", r.PLower, c.pLower)
			closeRel(t, "PUpper", r.PUpper, c.pUpper)
			closeRel(t, "P", r.P, math.Max(c.pLower, c.pUpper))
			closeRel(t, "CILowPercent", r.CILowPercent, c.ciLow)
			closeRel(t, "CIHighPercent", r.CIHighPercent, c.ciHigh)
			closeRel(t, "RelativeDiffPercent", r.RelativeDiffPercent, (c.ciLow+c.ciHigh)/2)
			if r.Decision != c.decision || r.MoreNeeded != c.moreNeeded {
				t.Errorf("decision %s, more needed %d (%s); want %s, %d", r.Decision, r.MoreNeeded, r.Reason, c.decision, c.moreNeeded)
			}
			if r.NBefore != len(c.before) || r.NAfter != len(c.after) {
				t.Errorf("counts %d/%d", r.NBefore, r.NAfter)
			}
		})
	}
}

func TestEquivalenceOrientsTheDifference(t *testing.T) {
	before := []float64{100, 101, 99, 100.5, 99.5}
	after := []float64{90, 91, 89, 90.5, 89.5}
	if r := Equivalence(before, after, 3, true, 0.05); r.Decision != Worse || r.RelativeDiffPercent > -9.9 {
		t.Errorf("bandwidth down 10%%: %+v", r)
	}
	// A latency 10% lower is better: not Worse, and beyond the margin on the good side.
	r := Equivalence(before, after, 3, false, 0.05)
	if r.Decision != Undecided || r.RelativeDiffPercent < 9.9 || r.MoreNeeded != 0 || !strings.Contains(r.Reason, "better") {
		t.Errorf("latency down 10%%: %+v", r)
	}
}

func TestEquivalenceDegenerateInputs(t *testing.T) {
	spread := []float64{10, 11, 9, 10}
	cases := []struct {
		name          string
		before, after []float64
		margin, alpha float64
		reason        string
		moreNeeded    int
	}{
		{"one before", []float64{10}, spread, 3, 0.05, "before samples", CannotDecideWithMoreAfter},
		{"no after", spread, nil, 3, 0.05, "after samples", 2},
		{"one after", spread, []float64{10}, 3, 0.05, "after samples", 1},
		{"zero variance", []float64{5, 5, 5}, []float64{5, 5}, 3, 0.05, "zero variance", CannotDecideWithMoreAfter},
		{"zero mean", []float64{-1, 1, 0}, spread, 3, 0.05, "zero", CannotDecideWithMoreAfter},
		{"NaN", spread, []float64{10, math.NaN()}, 3, 0.05, "NaN", CannotDecideWithMoreAfter},
		{"no margin", spread, spread, 0, 0.05, "margin", CannotDecideWithMoreAfter},
		{"alpha too big", spread, spread, 3, 0.5, "alpha", CannotDecideWithMoreAfter},
	}
	for _, c := range cases {
		r := Equivalence(c.before, c.after, c.margin, true, c.alpha)
		if r.Decision != Undecided || !strings.Contains(r.Reason, c.reason) || r.MoreNeeded != c.moreNeeded {
			t.Errorf("%s: %s %q more %d", c.name, r.Decision, r.Reason, r.MoreNeeded)
		}
	}
	// One sample without spread is fine: Welch's df falls back to the other's n-1.
	r := Equivalence([]float64{100, 101, 99}, []float64{100, 100, 100}, 5, true, 0.05)
	if r.Reason != "" || r.DF != 2 {
		t.Errorf("constant after: %+v", r)
	}
}

// simulateDecisions runs Equivalence on trials pairs of normal samples (before mean 100,
// after mean 100*(1+shiftPercent/100), both with the given coefficient of variation) and
// counts the decisions.
func simulateDecisions(seed uint64, trials, nBefore, nAfter int, cvPercent, shiftPercent, margin, alpha float64) map[EquivalenceDecision]int {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sample := func(n int, mean float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = mean + rng.NormFloat64()*cvPercent
		}
		return out
	}
	counts := map[EquivalenceDecision]int{}
	for range trials {
		before := sample(nBefore, 100)
		after := sample(nAfter, 100*(1+shiftPercent/100))
		counts[Equivalence(before, after, margin, true, alpha).Decision]++
	}
	return counts
}

// A gate that holds healthy upgrades wastes canaries; one that passes regressions is
// useless. These pin both rates for the gate's planned use (8 canary runs against 64).
func TestEquivalenceFalseHoldRate(t *testing.T) {
	const trials, alpha, margin = 2000, 0.05, 3.0
	for _, cv := range []float64{1, 3} {
		unshifted := simulateDecisions(1, trials, 64, 8, cv, 0, margin, alpha)
		if rate := float64(unshifted[Worse]) / trials; rate > alpha {
			t.Errorf("CV %g%%, no shift: Worse in %.4f of trials, more than alpha %g", cv, rate, alpha)
		}
		t.Logf("CV %g%%, no shift: %v", cv, unshifted)
	}
	// At a true shift of exactly -margin both calls are one-sided tests at their size: the
	// Worse call (a false hold) and the Equivalent call (a false pass) each in about alpha.
	boundary := simulateDecisions(2, trials, 64, 8, 1, -margin, margin, alpha)
	slack := 3 * math.Sqrt(trials*alpha*(1-alpha))
	for _, d := range []EquivalenceDecision{Worse, Equivalent} {
		if n := float64(boundary[d]); n > trials*alpha+slack {
			t.Errorf("shift at the margin: %s in %v of %d trials, want about %v", d, n, trials, trials*alpha)
		}
	}
	t.Logf("shift -margin: %v", boundary)

	worse := simulateDecisions(3, trials, 64, 8, 1, -5, margin, alpha)
	if rate := float64(worse[Worse]) / trials; rate < 0.95 {
		t.Errorf("5%% worse, CV 1%%: Worse in only %.3f of trials: %v", rate, worse)
	}
	t.Logf("shift -5%%: %v", worse)
	healthy := simulateDecisions(4, trials, 64, 8, 1, 0, margin, alpha)
	if rate := float64(healthy[Equivalent]) / trials; rate < 0.95 {
		t.Errorf("no shift, CV 1%%: Equivalent in only %.3f of trials: %v", rate, healthy)
	}
}

// MoreNeeded should be roughly right: adding that many samples from the same population
// should mostly decide the test.
func TestEquivalenceMoreNeededIsEnough(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 100 + 2*rng.NormFloat64()
		}
		return out
	}
	decided, asked := 0, 0
	for range 500 {
		before, after := draw(64), draw(3)
		r := Equivalence(before, after, 2, true, 0.05)
		if r.Decision != Undecided || r.MoreNeeded <= 0 {
			continue
		}
		asked++
		if Equivalence(before, append(after, draw(r.MoreNeeded)...), 2, true, 0.05).Decision == Equivalent {
			decided++
		}
	}
	if asked < 100 || float64(decided) < 0.6*float64(asked) {
		t.Errorf("after adding MoreNeeded samples, %d of %d became Equivalent", decided, asked)
	}
	t.Logf("after adding MoreNeeded samples, %d of %d became Equivalent", decided, asked)
}
