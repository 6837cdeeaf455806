package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/incache"
)

// fleetCollector derives the fleet series from the SpiralBenchFleets' status and their
// current round's SpiralBenchNodeResults at each scrape,
// as benchCollector does for benches: node verdicts, their reason codes, and round progress.
type fleetCollector struct{ benchCollector }

var (
	fleetLabels = []string{"namespace", "fleet"}
	nodeLabels  = []string{"namespace", "fleet", "node"}

	descFleetRound = prometheus.NewDesc("spiralbench_fleet_round",
		"The fleet's current (or last) round number.", fleetLabels, nil)
	descFleetRoundRunning = prometheus.NewDesc("spiralbench_fleet_round_running",
		"1 while a round benches nodes, 0 between rounds.", fleetLabels, nil)
	descFleetNodes = prometheus.NewDesc("spiralbench_fleet_nodes",
		"Pool nodes by verdict in the current round: Pending, Running, Passed, Failed, Invalid, Skipped, Left, Expired.",
		append(fleetLabels, "verdict"), nil)
	descNodeVerdict = prometheus.NewDesc("spiralbench_fleet_node_verdict",
		"1 for each pool node, labelled with its verdict, the suite step it is at or ended on, and its reference class.",
		append(nodeLabels, "verdict", "step", "class"), nil)
	descNodeReason = prometheus.NewDesc("spiralbench_fleet_node_reason",
		"1 for each reason code of a node's verdict (docs/qualification.md), with the step it concerns.",
		append(nodeLabels, "code", "step"), nil)
	descNodeValue = prometheus.NewDesc("spiralbench_fleet_node_value",
		"A pool node's headline figure this round (the fleet's stragglers or baseline metric, else RxMbps), in the metric's unit; absent before it has one.",
		append(nodeLabels, "metric"), nil)
	descNodeValidUntil = prometheus.NewDesc("spiralbench_fleet_node_verdict_valid_until_seconds",
		"Unix time at which a node's verdict expires (verdicts.validSeconds).", nodeLabels, nil)
)

func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFleetRound, descFleetRoundRunning, descFleetNodes, descNodeVerdict, descNodeReason, descNodeValue, descNodeValidUntil} {
		ch <- d
	}
}

func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Read only, so in place (a 10,000-node fleet has 10,000 results).
	fleets, err := incache.Objects(ctx, c.cache, c.reader, &sbv1.SpiralBenchFleet{}, &sbv1.SpiralBenchFleetList{}, "", every[*sbv1.SpiralBenchFleet])
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descFleetNodes, err)
		return
	}
	results, err := incache.Objects(ctx, c.cache, c.reader, &sbv1.SpiralBenchNodeResult{}, &sbv1.SpiralBenchNodeResultList{}, "", every[*sbv1.SpiralBenchNodeResult])
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descNodeVerdict, err)
		return
	}
	// Each fleet's rows are its results of its current round.
	rows := map[string][]*sbv1.FleetNode{}
	for _, r := range results {
		rows[resultKey(r.Namespace, r.Fleet, r.Round)] = append(rows[resultKey(r.Namespace, r.Fleet, r.Round)], &r.Result)
	}
	for _, f := range fleets {
		collectFleet(ch, f, rows[resultKey(f.Namespace, f.Name, f.Status.Round)])
	}
}

func resultKey(ns, fleetName string, round int32) string {
	return fmt.Sprintf("%s/%s/%d", ns, fleetName, round)
}

func collectFleet(ch chan<- prometheus.Metric, f *sbv1.SpiralBenchFleet, rows []*sbv1.FleetNode) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descFleetRound, float64(f.Status.Round), f.Namespace, f.Name)
	running := 0.0
	if meta.IsStatusConditionTrue(f.Status.Conditions, sbv1.FleetConditionRoundRunning) {
		running = 1
	}
	gauge(descFleetRoundRunning, running, f.Namespace, f.Name)
	metric := string(fleet.HeadlineMetric(&f.Spec))
	counts := map[sbv1.NodeVerdict]int{}
	for _, v := range []sbv1.NodeVerdict{sbv1.NodePending, sbv1.NodeRunning, sbv1.NodePassed, sbv1.NodeFailed, sbv1.NodeInvalid, sbv1.NodeSkipped, sbv1.NodeLeft, sbv1.NodeExpired} {
		counts[v] = 0
	}
	for _, row := range rows {
		counts[row.Verdict]++
		gauge(descNodeVerdict, 1, f.Namespace, f.Name, row.Name, string(row.Verdict), row.Step, row.Class)
		for _, l := range row.Reasons {
			r := fleet.ParseReason(l)
			gauge(descNodeReason, 1, f.Namespace, f.Name, row.Name, string(r.Code), r.Step)
		}
		if row.Value != nil {
			gauge(descNodeValue, float64(*row.Value), f.Namespace, f.Name, row.Name, metric)
		}
		if row.ValidUntil != nil {
			gauge(descNodeValidUntil, float64(row.ValidUntil.Unix()), f.Namespace, f.Name, row.Name)
		}
	}
	for v, n := range counts {
		gauge(descFleetNodes, float64(n), f.Namespace, f.Name, string(v))
	}
}
