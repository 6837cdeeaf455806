package cellpod

import (
	"math"
	"strconv"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// searchArgs renders run.search as the data plane's --search-* flags (docs/ndr-search.md);
// none without a search.
func searchArgs(s *sbv1.RateSearchSpec) []string {
	if s == nil {
		return nil
	}
	a := []string{"--search",
		"--search-lower-mbps", i64toa(max(s.LowerMbps, 1)),
		"--search-upper-mbps", i64toa(ptr.Deref(s.UpperMbps, 0)),
		"--search-trial-seconds", itoa(max(s.TrialSeconds, 1)),
		"--search-settle-ms", itoa(ptr.Deref(s.SettleMilliseconds, 500)),
		"--search-method", searchMethod(s.Method),
	}
	switch {
	case s.ResolutionMbps != nil:
		a = append(a, "--search-resolution-mbps", i64toa(*s.ResolutionMbps))
	case s.ResolutionPercent != nil:
		a = append(a, "--search-resolution-percent", itoa(*s.ResolutionPercent))
	}
	if s.PDRTolerancePPM != nil {
		a = append(a, "--search-pdr-ppm", i64toa(*s.PDRTolerancePPM))
	}
	return a
}

func searchMethod(m sbv1.SearchMethod) string {
	if m == sbv1.SearchMethodBinary {
		return "binary"
	}
	return "receive_rate"
}

// searchTrialOverheadSeconds is each trial's cost beyond its window: reconnect, the receiver's
// drain (grace) and the reports.
const searchTrialOverheadSeconds = 3

// maxSearchTrials bounds the trials of one search: the upper and lower bound, a bisection of
// the range to the resolution (twice with a PDR tolerance), the verification. An unknown
// upper bound is taken as 400 Gb/s.
func maxSearchTrials(s *sbv1.RateSearchSpec) int64 {
	lower := float64(max(s.LowerMbps, 1))
	upper := float64(ptr.Deref(s.UpperMbps, 0))
	if upper == 0 {
		upper = 400_000
	}
	var steps float64
	switch {
	case s.ResolutionMbps != nil && *s.ResolutionMbps > 0:
		steps = (upper - lower) / float64(*s.ResolutionMbps)
	case s.ResolutionPercent != nil && *s.ResolutionPercent > 0:
		steps = 100 / float64(*s.ResolutionPercent)
	default:
		steps = 100
	}
	bisections := int64(math.Ceil(math.Log2(max(steps, 2)))) + 1
	if s.PDRTolerancePPM != nil {
		bisections *= 2
	}
	return 2 + bisections + 1
}

// searchSeconds is how much longer than one run a cell with a search may take.
func searchSeconds(run sbv1.RunSpec) int64 {
	s := run.Search
	if s == nil {
		return 0
	}
	perTrial := int64(ptr.Deref(run.WarmupSeconds, 0)) + int64(max(s.TrialSeconds, 1)) +
		(int64(ptr.Deref(s.SettleMilliseconds, 500))+999)/1000 + searchTrialOverheadSeconds
	return maxSearchTrials(s) * perTrial
}

func i64toa(v int64) string { return strconv.FormatInt(v, 10) }
