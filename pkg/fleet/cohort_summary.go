package fleet

import (
	"math"
	"sort"
)

// CohortSideLimit bounds the values listed per side of a cohort in the round summary: a class
// can hold thousands of nodes, and the summary is read by people and plotted.
const CohortSideLimit = 1000

// CohortValue is one node's headline figure, in the figure's counted unit.
type CohortValue struct {
	Node  string  `json:"node"`
	Value float64 `json:"value"`
}

// CohortSide is one of the two distributions a cohort compares.
type CohortSide struct {
	// Driver names the side's driver: the new one for the canaries; empty for the reference,
	// which may span several older drivers.
	Driver string `json:"driver,omitempty"`
	// N counts every value of the side, listed or not.
	N int `json:"n"`
	// Values are the first CohortSideLimit by node name: an order that does not depend on the
	// value, so a cut list is not biased towards either tail.
	Values []CohortValue `json:"values"`
	// LeftOut counts the values past the limit.
	LeftOut int `json:"leftOut,omitempty"`
}

// CohortSummary is one canary cohort of the round as the summary shows it: the two
// distributions, the margin, and what the equivalence test made of them. Differences are in
// percent of the reference mean, oriented so that negative is worse; a figure the test could
// not compute (too few samples) is omitted rather than written as NaN, which JSON lacks.
type CohortSummary struct {
	Class          string   `json:"class"`
	Driver         string   `json:"driver"`
	Figure         string   `json:"figure"`
	HigherIsBetter bool     `json:"higherIsBetter"`
	Decision       string   `json:"decision"`
	Message        string   `json:"message"`
	Reason         string   `json:"reason,omitempty"`
	MarginPercent  float64  `json:"marginPercent"`
	Alpha          float64  `json:"alpha"`
	MeanBefore     *float64 `json:"meanBefore,omitempty"`
	MeanAfter      *float64 `json:"meanAfter,omitempty"`
	// DifferencePercent lies in [IntervalLowPercent, IntervalHighPercent], the (1-2α)
	// interval whose position against ±MarginPercent is the decision.
	DifferencePercent   *float64   `json:"differencePercent,omitempty"`
	IntervalLowPercent  *float64   `json:"intervalLowPercent,omitempty"`
	IntervalHighPercent *float64   `json:"intervalHighPercent,omitempty"`
	P                   *float64   `json:"p,omitempty"`
	NBefore             int        `json:"nBefore"`
	NAfter              int        `json:"nAfter"`
	MoreNeeded          int        `json:"moreNeeded"`
	Before              CohortSide `json:"before"`
	After               CohortSide `json:"after"`
}

// SummarizeCohort lists the values behind a decided cohort: the reference is every node on
// another driver and the canaries are the cohort's own, as DecideCohort split the same nodes.
// NBefore and NAfter are the test's counts, so a list that disagrees with them shows it.
func SummarizeCohort(c Cohort, nodes []CohortNode, higherIsBetter bool) CohortSummary {
	r := c.Result
	s := CohortSummary{Class: c.Class, Driver: c.Driver, Figure: c.Figure, HigherIsBetter: higherIsBetter,
		Decision: string(r.Decision), Message: c.Message(), Reason: r.Reason, MarginPercent: r.MarginPercent, Alpha: r.Alpha,
		IntervalLowPercent:  finite(r.CILowPercent),
		IntervalHighPercent: finite(r.CIHighPercent), P: finite(r.P),
		NBefore: r.NBefore, NAfter: r.NAfter, MoreNeeded: r.MoreNeeded}
	var before, after []CohortValue
	for _, n := range nodes {
		switch {
		case n.Driver != c.Driver:
			before = append(before, CohortValue{Node: n.Name, Value: n.Value})
		case c.IsCanary(n.Name):
			after = append(after, CohortValue{Node: n.Name, Value: n.Value})
		}
	}
	// The means from the full lists: the test leaves them unset where it stops early.
	s.MeanBefore, s.MeanAfter = meanOf(before), meanOf(after)
	// The same for the difference (the test reports 0 where it stops early): the observed one,
	// oriented as the test's, whenever both sides have a mean.
	if s.MeanBefore != nil && s.MeanAfter != nil && *s.MeanBefore != 0 {
		d := (*s.MeanAfter - *s.MeanBefore) / math.Abs(*s.MeanBefore) * 100
		if !higherIsBetter {
			d = -d
		}
		s.DifferencePercent = finite(d)
	}
	s.Before, s.After = side("", before), side(c.Driver, after)
	return s
}

func meanOf(values []CohortValue) *float64 {
	if len(values) == 0 {
		return nil
	}
	var sum float64
	for _, v := range values {
		sum += v.Value
	}
	return finite(sum / float64(len(values)))
}

func side(driver string, values []CohortValue) CohortSide {
	sort.Slice(values, func(i, j int) bool { return values[i].Node < values[j].Node })
	s := CohortSide{Driver: driver, N: len(values), Values: values}
	if len(values) > CohortSideLimit {
		s.Values, s.LeftOut = values[:CohortSideLimit], len(values)-CohortSideLimit
	}
	if s.Values == nil {
		s.Values = []CohortValue{} // "values": [] reads as "none", null as "not recorded"
	}
	return s
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// CohortPlotName is the file stem of a cohort's figure in the round's folder:
// cohort-<class>-<driver>, "all" for the class of a fleet without a catalog. Class and driver
// are label values and may hold characters an object key should not; those become "_", and a
// name changed so (or cut to length) gains a hash of the original, so two cohorts never share
// a file.
func CohortPlotName(class, driver string) string {
	if class == "" {
		class = "all" // only a fleet without a catalog has it, and then it is its only class
	}
	c, cChanged := keySafe(class)
	d, dChanged := keySafe(driver)
	name := "cohort-" + c + "-" + d
	const maxLen = 100
	if cChanged || dChanged || len(name) > maxLen {
		tag := "-" + hash8(class+"\x00"+driver)
		name = name[:min(len(name), maxLen-len(tag))] + tag
	}
	return name
}

// keySafe keeps letters, digits, '.', '_' and '-' (safe in any object store's key and any
// file system), replacing the rest; changed says whether anything was replaced.
func keySafe(s string) (string, bool) {
	out := []byte(s)
	changed := false
	for i, b := range out {
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
		if !ok {
			out[i], changed = '_', true
		}
	}
	return string(out), changed
}
