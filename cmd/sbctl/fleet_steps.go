package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// renderSteps prints the step records of each fleet's newest round of the node (rows are
// sorted by fleet, then round): how each step ended, its figure, what the figure was judged
// against and the bench, so a Passed verdict says what it rests on. -o json has every round's.
func renderSteps(w io.Writer, rows []sbv1.SpiralBenchNodeResult) error {
	for i, r := range rows {
		if i+1 < len(rows) && rows[i+1].Fleet == r.Fleet {
			continue // an older round of the same fleet
		}
		if len(r.Result.Steps) == 0 {
			continue // not decided yet, or decided before step records
		}
		fmt.Fprintf(w, "\nSteps of fleet %s round %d (%s):\n", r.Fleet, r.Round, r.Result.StepsSummary)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STEP\tSTATE\tFIGURE\tVALUE\tJUDGED AGAINST\tBENCH\tREASON")
		for _, s := range r.Result.Steps {
			name, value := s.Name, ""
			if name == "" {
				name = "(template)"
			}
			if s.Value != nil {
				value = strconv.FormatInt(*s.Value, 10) + " " + s.Unit
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, s.State, s.Figure, value, s.JudgedAgainst, s.Bench, s.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
