package fleetctrl

import (
	"math"
	"sort"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// The class-wide test of a driver upgrade (spec.upgradeGate.canaries, docs/fleet.md "Canary
// cohorts"): per node class and new driver version, the first nodes whose bench after the
// upgrade passed are the canaries; the class's other upgraded nodes stay gated until the
// canaries' headline figure is shown equivalent to the class's on the old driver. It is
// computed afresh each pass from the rows and the nodes' driver labels, so a restarted manager
// decides the same. The reference is the class's nodes decided on another driver in the
// current round: a round that has just started holds fewer of them.

// cohortDriver is the driver version the node's label names ("" when unlabelled).
func cohortDriver(v *fleetView, node string) string {
	n := v.pool[node]
	if n == nil {
		return ""
	}
	return n.Labels[v.f.Spec.UpgradeGate.DriverVersionLabel]
}

// upgradedAndPassed: the row's bench after its upgrade passed (released, held by its cohort,
// or being released now).
func upgradedAndPassed(row *sbv1.FleetNode) bool {
	return row.Verdict == sbv1.NodePassed && row.Value != nil &&
		(row.Upgrade == sbv1.GateReleased || row.Upgrade == sbv1.GateHeld || row.Upgrade == sbv1.GateBenching)
}

// classNodes are the class's nodes the test reads: passed, with a value and a driver label.
func classNodes(v *fleetView, class string) []fleet.CohortNode {
	var nodes []fleet.CohortNode
	for name, row := range v.rows {
		d := cohortDriver(v, name)
		if row.Class != class || d == "" || row.Verdict != sbv1.NodePassed || row.Value == nil {
			continue
		}
		n := fleet.CohortNode{Name: name, Driver: d, Value: float64(*row.Value), Upgraded: upgradedAndPassed(row)}
		if row.LastBenchTime != nil {
			n.When = row.LastBenchTime.Time
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// cohort is the class-wide test of driver on class, from the view's rows.
func cohort(v *fleetView, class, driver string) fleet.Cohort {
	gate := v.f.Spec.UpgradeGate
	return fleet.DecideCohort(class, driver, v.metric, figure.HigherIsBetter(v.metric), classNodes(v, class),
		int(gate.Canaries), float64(gate.EquivalenceMarginPercent))
}

// cohortHolds says whether a node that passed its bench after the upgrade waits for its
// class's cohort (and why): a canary does not, nor does any node once the cohort is
// equivalent; a worse or undecided cohort holds the rest.
func cohortHolds(v *fleetView, row *sbv1.FleetNode) (bool, string) {
	gate := v.f.Spec.UpgradeGate
	driver := cohortDriver(v, row.Name)
	if gate == nil || gate.Canaries == 0 || driver == "" {
		return false, ""
	}
	c := cohort(v, row.Class, driver)
	if c.IsCanary(row.Name) || c.Result.Decision == fleet.Equivalent {
		return false, ""
	}
	if c.Result.Decision == fleet.Worse {
		return true, "held by its class's canary cohort: " + c.Message()
	}
	return true, "waits for its class's canary cohort: " + c.Message()
}

// maxCohorts bounds the cohorts status and the round's summary list (and draw).
const maxCohorts = 16

// cohortKey is one class and new driver version.
type cohortKey struct{ class, driver string }

// recentCohorts are the classes and new drivers with an upgraded node, the most recent first, at
// most maxCohorts: what status and the round's summary show.
func recentCohorts(v *fleetView) []cohortKey {
	gate := v.f.Spec.UpgradeGate
	if gate == nil || gate.Canaries == 0 {
		return nil
	}
	latest := map[cohortKey]int64{}
	for name, row := range v.rows {
		if d := cohortDriver(v, name); d != "" && upgradedAndPassed(row) {
			k := cohortKey{row.Class, d}
			latest[k] = max(latest[k], unixNano(row))
		}
	}
	keys := make([]cohortKey, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if latest[keys[i]] != latest[keys[j]] {
			return latest[keys[i]] > latest[keys[j]]
		}
		return keys[i].class+"/"+keys[i].driver < keys[j].class+"/"+keys[j].driver
	})
	return keys[:min(len(keys), maxCohorts)]
}

// cohortStatus is status.upgradeCohorts.
func cohortStatus(v *fleetView) []sbv1.UpgradeCohort {
	var out []sbv1.UpgradeCohort
	for _, k := range recentCohorts(v) {
		c := cohort(v, k.class, k.driver)
		r := c.Result
		out = append(out, sbv1.UpgradeCohort{Class: k.class, Driver: shorten(k.driver, 63), Figure: c.Figure, Decision: string(r.Decision),
			Canaries: int32(r.NAfter), Reference: int32(r.NBefore), DifferenceMilliPercent: finiteMilli(r.RelativeDiffPercent),
			PValueMicro: finiteMicro(r.P), MoreNeeded: int32(r.MoreNeeded), Message: shorten(c.Message(), 256)})
	}
	return out
}

func unixNano(row *sbv1.FleetNode) int64 {
	if row.LastBenchTime == nil {
		return 1
	}
	return row.LastBenchTime.UnixNano()
}

func finiteMilli(percent float64) int64 {
	if math.IsNaN(percent) || math.IsInf(percent, 0) {
		return 0
	}
	return int64(math.Round(percent * 1000))
}

func finiteMicro(p float64) int64 {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0
	}
	return int64(math.Round(p * 1e6))
}
