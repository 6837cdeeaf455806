package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
)

// explainLegend explains the columns, for --help.
const explainLegend = `Columns: CELL is the cell's index (* the headline cell); MEASURED its headline figure (RX
throughput; a GPU copy's H2D rate; NCCL's bus bandwidth at the largest size); CEILING the most
that figure can be on the cell's path (the wire, PCIe links, NVLinks, GPU memory: docs/ceilings.md);
FRACTION measured / ceiling; BOUND BY what held the figure back: the ceiling's component, or a
saturated core or GPU when the figure is well under the ceiling. Under the table, each ceiling's
arithmetic and the facts the bench did not record. A ceiling is unknown, with the reason, where
the bench does not record a fact it needs (a link speed, an MTU, a GPU's PCIe link).`

func newExplain(k *kube) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use: "explain [NAMESPACE/]NAME", Short: "Say per cell what the figure could be at most and what held it back (-o json)",
		Long: "Say per cell what its headline figure could be at most (its physical ceiling), the fraction of it\n" +
			"measured and what bounded it.\n\n" + explainLegend,
		Example:           "  sbctl explain tcp-sweep\n  sbctl explain bench/tcp-sweep -o json | jq '.cells[] | {cell, fraction, boundBy}'",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "json"); err != nil {
				return err
			}
			sb, err := k.get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printExplain(cmd.OutOrStdout(), sb, output)
		},
	}
	addOutputFlag(cmd, &output, "json")
	return cmd
}

// explained is what -o json prints.
type explained struct {
	Bench     string                `json:"bench"`
	Namespace string                `json:"namespace"`
	Transport sbv1.Transport        `json:"transport"`
	Cells     []explain.Explanation `json:"cells"`
}

func printExplain(w io.Writer, sb *sbv1.SpiralBench, output string) error {
	cells := explain.Bench(sb)
	if output == "json" {
		data, err := json.MarshalIndent(explained{Bench: sb.Name, Namespace: sb.Namespace, Transport: sb.Spec.Transport, Cells: cells}, "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	fmt.Fprintf(w, "SpiralBench %s/%s: %s, %d cells\n", sb.Namespace, sb.Name, sb.Spec.Transport, len(cells))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tPARAMETERS\tMEASURED\tCEILING\tFRACTION\tBOUND BY")
	for _, e := range cells {
		mark := ""
		if e.Headline {
			mark = "*"
		}
		measured, ceil, fraction := "-", "unknown", "-"
		if e.Measured != nil {
			measured = explain.FormatValue(e.Unit, *e.Measured)
		}
		if e.Ceiling != nil {
			ceil = explain.FormatValue(e.Unit, *e.Ceiling)
		}
		if e.Fraction != nil {
			fraction = fmt.Sprintf("%.2f", *e.Fraction)
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\t%s\n", e.Cell, mark, e.Parameters, measured, ceil, fraction, e.BoundBy)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeModels(w, cells)
	return nil
}

// writeModels prints each ceiling's arithmetic once, with the cells it applies to, then the
// facts not recorded: "cells 0-8: 100 Gb/s Ethernet of eth1, 99.00 Gb/s: ...".
func writeModels(w io.Writer, cells []explain.Explanation) {
	var order []string
	of := map[string][]int32{}
	for _, e := range cells {
		var line string
		switch {
		case e.Ceiling != nil:
			line = fmt.Sprintf("%s, %s: %s", e.Name, explain.FormatValue(e.Unit, *e.Ceiling), e.Model)
		case e.Unknown != "":
			line = "ceiling unknown: " + e.Unknown
		default:
			continue
		}
		if len(e.Missing) > 0 {
			line += " (not counted: " + strings.Join(e.Missing, "; ") + ")"
		}
		if _, ok := of[line]; !ok {
			order = append(order, line)
		}
		of[line] = append(of[line], e.Cell)
	}
	for _, line := range order {
		fmt.Fprintf(w, "%s: %s\n", cellList(of[line]), line)
	}
}

// cellList names cells compactly: "cell 3", "cells 0-8", "cells 0-2,5".
func cellList(idx []int32) string {
	if len(idx) == 1 {
		return fmt.Sprintf("cell %d", idx[0])
	}
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		} else {
			parts = append(parts, fmt.Sprint(idx[i]))
		}
		i = j + 1
	}
	return "cells " + strings.Join(parts, ",")
}
