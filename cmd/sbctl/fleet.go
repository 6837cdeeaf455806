package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// newFleet is `sbctl fleet NODE`: one node's history in the namespace's fleets, a row per
// fleet and round, from its SpiralBenchNodeResults (a fleet keeps its last rounds'; older
// rounds are in the bucket's node history), then each fleet's newest round step by step. `sbctl fleet --fleet NAME` without a node prints
// the fleet's driver-upgrade cohorts and the round's degrading nodes (fleet_view.go).
func newFleet(k *kube) *cobra.Command {
	var fleetName, output string
	cmd := &cobra.Command{
		Use:   "fleet [NODE]",
		Short: "Print one node's verdicts over the fleets' rounds and the steps of the newest, or a fleet's upgrade cohorts and degrading nodes",
		Example: "  sbctl fleet gpu-node-7\n  sbctl fleet gpu-node-7 --fleet gpu-pool -o json\n  sbctl fleet --fleet gpu-pool\n\n" +
			"The whole round's rows: kubectl get sbnr -l spiralbench.io/fleet=gpu-pool,spiralbench.io/fleet-round=3\n" +
			"Failed nodes only: kubectl get sbnr -l spiralbench.io/verdict=Failed",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := k.client()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if fleetName == "" {
					return fmt.Errorf("name a node, or a fleet with --fleet NAME")
				}
				return renderFleetView(cmd.Context(), cmd.OutOrStdout(), c, ns, fleetName)
			}
			sel := client.MatchingLabels{sbv1.LabelResultNode: fleet.NodeLabelValue(args[0])}
			if fleetName != "" {
				sel[sbv1.LabelResultFleet] = fleetName
			}
			var list sbv1.SpiralBenchNodeResultList
			if err := c.List(cmd.Context(), &list, client.InNamespace(ns), sel); err != nil {
				return err
			}
			var rows []sbv1.SpiralBenchNodeResult
			for _, r := range list.Items {
				if r.Result.Name == args[0] { // a hashed label value could be shared
					rows = append(rows, r)
				}
			}
			if len(rows) == 0 {
				return fmt.Errorf("no fleet result for node %s in namespace %s", args[0], ns)
			}
			sort.Slice(rows, func(i, j int) bool {
				if rows[i].Fleet != rows[j].Fleet {
					return rows[i].Fleet < rows[j].Fleet
				}
				return rows[i].Round < rows[j].Round
			})
			return renderNodeHistory(cmd.OutOrStdout(), rows, output)
		},
	}
	cmd.Flags().StringVar(&fleetName, "fleet", "", "only this fleet's rounds")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "table or json")
	return cmd
}

func renderNodeHistory(w io.Writer, rows []sbv1.SpiralBenchNodeResult, output string) error {
	switch output {
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(rows)
	case "table", "":
	default:
		return fmt.Errorf("-o %s: use table or json", output)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLEET\tROUND\tVERDICT\tSTEPS\tSTEP\tREASONS\tVALUE\tBENCH\tFINISHED\tREASON")
	for _, r := range rows {
		row := r.Result
		value, finished := "", ""
		if row.Value != nil {
			value = strconv.FormatInt(*row.Value, 10)
		}
		if row.LastBenchTime != nil {
			finished = row.LastBenchTime.UTC().Format("2006-01-02T15:04:05Z")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Fleet, r.Round, row.Verdict, row.StepsSummary, row.Step,
			strings.Join(row.Reasons, ","), value, row.Bench, finished, row.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return renderSteps(w, rows)
}
