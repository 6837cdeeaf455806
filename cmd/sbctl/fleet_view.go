package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// renderFleetView prints what a fleet says beyond single nodes: its driver-upgrade cohorts
// (status.upgradeCohorts) and the nodes of its current round whose trend is degrading.
func renderFleetView(ctx context.Context, w io.Writer, c client.Client, ns, name string) error {
	var f sbv1.SpiralBenchFleet
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &f); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(f.Status.UpgradeCohorts) == 0 {
		fmt.Fprintln(tw, "UPGRADE COHORTS: none (spec.upgradeGate.canaries, docs/fleet.md \"Canary cohorts\")")
	} else {
		fmt.Fprintln(tw, "CLASS\tDRIVER\tFIGURE\tDECISION\tCANARIES\tREFERENCE\tDIFFERENCE\tMORE NEEDED\tMESSAGE")
		for _, co := range f.Status.UpgradeCohorts {
			class := co.Class
			if class == "" {
				class = "(pool)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%+.1f%%\t%d\t%s\n", class, co.Driver, co.Figure, co.Decision, co.Canaries, co.Reference,
				float64(co.DifferenceMilliPercent)/1000, co.MoreNeeded, co.Message)
		}
	}
	var list sbv1.SpiralBenchNodeResultList
	if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{
		sbv1.LabelResultFleet: name, sbv1.LabelResultRound: strconv.Itoa(int(f.Status.Round))}); err != nil {
		return err
	}
	var degrading []sbv1.FleetNode
	for _, r := range list.Items {
		if r.Fleet == name && slices.Contains(r.Result.Reasons, string(fleet.Degrading)) {
			degrading = append(degrading, r.Result)
		}
	}
	slices.SortFunc(degrading, func(a, b sbv1.FleetNode) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	fmt.Fprintln(tw)
	if len(degrading) == 0 {
		fmt.Fprintf(tw, "DEGRADING NODES in round %d: none (spec.baseline.trendRounds, docs/fleet.md \"Trends\")\n", f.Status.Round)
		return tw.Flush()
	}
	fmt.Fprintf(tw, "DEGRADING NODE\tVERDICT\tVALUE\tREASON\n")
	for _, row := range degrading {
		value := ""
		if row.Value != nil {
			value = strconv.FormatInt(*row.Value, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Name, row.Verdict, value, row.Reason)
	}
	return tw.Flush()
}
