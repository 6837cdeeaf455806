package fleet

import (
	"fmt"
	"sort"
	"time"
)

// CohortAlpha is the level of each one-sided test of a canary cohort: the class-wide hold
// (Worse) is wrong at most this often when the driver changed nothing.
const CohortAlpha = 0.05

// CohortNode is one node of a class, as the upgrade gate's class-wide test sees it.
type CohortNode struct {
	Name   string
	Driver string
	// Value is the node's headline figure, from its last passed bench (on Driver).
	Value float64
	// Passed after its upgrade (a canary candidate) at When; false for a node whose figure
	// stands for the old driver.
	Upgraded bool
	When     time.Time
}

// Cohort is the class-wide test of one driver version: which nodes form its canary cohort,
// and what the equivalence test says.
type Cohort struct {
	Class, Driver, Figure string
	// Canaries are the cohort's nodes, in the order their upgrade benches passed.
	Canaries []string
	Result   EquivalenceResult
}

// DecideCohort tests the first `canaries` upgraded nodes on driver against the class's nodes
// on other drivers. An undecided test that more canaries would decide takes the next
// upgraded nodes into the cohort, as many as it needs, when they have passed already.
func DecideCohort(class, driver, figure string, higherIsBetter bool, nodes []CohortNode, canaries int, marginPercent float64) Cohort {
	var before []float64
	var upgraded []CohortNode
	for _, n := range nodes {
		switch {
		case n.Driver != driver:
			before = append(before, n.Value)
		case n.Upgraded:
			upgraded = append(upgraded, n)
		}
	}
	sort.SliceStable(upgraded, func(i, j int) bool {
		if !upgraded[i].When.Equal(upgraded[j].When) {
			return upgraded[i].When.Before(upgraded[j].When)
		}
		return upgraded[i].Name < upgraded[j].Name
	})
	size := min(canaries, len(upgraded))
	c := Cohort{Class: class, Driver: driver, Figure: figure}
	for {
		after := make([]float64, size)
		for i := range after {
			after[i] = upgraded[i].Value
		}
		c.Result = Equivalence(before, after, marginPercent, higherIsBetter, CohortAlpha)
		grow := c.Result.Decision == Undecided && c.Result.MoreNeeded > 0 && size < len(upgraded)
		if !grow {
			break
		}
		size = min(size+c.Result.MoreNeeded, len(upgraded))
	}
	for _, n := range upgraded[:size] {
		c.Canaries = append(c.Canaries, n.Name)
	}
	return c
}

// IsCanary says whether the node is one of the cohort's canaries.
func (c Cohort) IsCanary(node string) bool {
	for _, n := range c.Canaries {
		if n == node {
			return true
		}
	}
	return false
}

// Message says the decision in words: "driver 580.159 on class h200: RxMbps equivalent within
// 3% (-0.4%, n=8 vs 64, p=0.002)".
func (c Cohort) Message() string {
	r := c.Result
	on := "driver " + c.Driver
	if c.Class != "" {
		on += " on class " + c.Class
	}
	switch {
	case r.Decision == Equivalent:
		return fmt.Sprintf("%s: %s equivalent within %g%% (%+.1f%%, n=%d vs %d, p=%.3g)", on, c.Figure, r.MarginPercent, r.RelativeDiffPercent, r.NAfter, r.NBefore, r.P)
	case r.Decision == Worse:
		return fmt.Sprintf("%s: %s worse by %.1f%% (%.0f%% interval %.1f..%.1f%%, beyond the %g%% margin; n=%d vs %d)", on, c.Figure,
			-r.RelativeDiffPercent, 100*(1-2*r.Alpha), r.CILowPercent, r.CIHighPercent, r.MarginPercent, r.NAfter, r.NBefore)
	case r.MoreNeeded > 0:
		return fmt.Sprintf("%s: %s undecided (%+.1f%%, n=%d vs %d): %d more canaries needed", on, c.Figure, r.RelativeDiffPercent, r.NAfter, r.NBefore, r.MoreNeeded)
	}
	why := r.Reason
	if why == "" {
		why = "more canaries alone cannot decide it"
	}
	return fmt.Sprintf("%s: %s undecided (n=%d vs %d): %s", on, c.Figure, r.NAfter, r.NBefore, why)
}
