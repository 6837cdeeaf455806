package fleetctrl

import (
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// cohortSummaries are the round's canary cohorts for its summary, each with the values it
// compared: the cohorts status.upgradeCohorts lists, from the same nodes.
func cohortSummaries(v *fleetView) []fleet.CohortSummary {
	var out []fleet.CohortSummary
	for _, k := range recentCohorts(v) {
		out = append(out, fleet.SummarizeCohort(cohort(v, k.class, k.driver), classNodes(v, k.class), figure.HigherIsBetter(v.metric)))
	}
	return out
}
