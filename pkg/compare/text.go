package compare

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Legend explains the table's columns.
const Legend = `CELL is the cell's index in A and B ("3/2": cell 3 of A matched cell 2 of B by its parameters);
A and B are mean ± sample standard deviation over the valid repeats (n of them); DELTA is
(B - A) / A; P is the two-sided p-value of Welch's t-test over the repeats ("-": fewer than two
repeats on a side); VERDICT is worse or better when the change is significant and beyond the
tolerance, else within tolerance or no significant change.`

// WriteText prints the spec differences that change what was measured first, then the
// comparison table, the environment differences (keys both runs captured), the cells present
// in one run only, and a one-line summary a CI log reads.
func WriteText(w io.Writer, r Result) error {
	fmt.Fprintf(w, "A: %s\nB: %s\n\n", r.A, r.B)
	if len(r.Spec) > 0 {
		fmt.Fprintln(w, "spec differences (they change what was measured):")
		for _, d := range r.Spec {
			fmt.Fprintf(w, "  %s: %s -> %s\n", d.Field, d.A, d.B)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tPARAMETERS\tMETRIC\tA\tB\tDELTA\tP\tVERDICT")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cells(row), row.Parameters, row.Metric,
			sampleText(row.A), sampleText(row.B), deltaText(row), pText(row), row.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Environment) > 0 {
		fmt.Fprintln(w, "\nenvironment differences:")
		for _, d := range r.Environment {
			fmt.Fprintf(w, "  %s: %q -> %q\n", d.Field, d.A, d.B)
		}
	}
	if len(r.NotCaptured) > 0 {
		fmt.Fprintln(w, "\nenvironment keys one run did not capture (unknown, not compared):")
		for _, k := range r.NotCaptured {
			fmt.Fprintf(w, "  %s\n", k)
		}
	}
	for _, only := range []struct {
		name  string
		cells []string
	}{{"A", r.OnlyInA}, {"B", r.OnlyInB}} {
		if len(only.cells) > 0 {
			fmt.Fprintf(w, "\ncells only in %s:\n", only.name)
			for _, c := range only.cells {
				fmt.Fprintf(w, "  %s\n", c)
			}
		}
	}
	verdict := "no cell got worse"
	if r.Worse > 0 {
		verdict = fmt.Sprintf("%d worse", r.Worse)
	}
	_, err := fmt.Fprintf(w, "\n%s (significant at p < %g and beyond %g%%, Welch's t-test over the repeats)\n\n%s\n",
		verdict, r.Options.Alpha, r.Options.TolerancePct, Legend)
	return err
}

func cells(r Row) string {
	if r.CellA == r.CellB {
		return fmt.Sprint(r.CellA)
	}
	return fmt.Sprintf("%d/%d", r.CellA, r.CellB)
}

func sampleText(s Sample) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ± %.2f (n=%d)", s.Mean, s.Std, s.N)
}

func deltaText(r Row) string {
	if r.A.N == 0 || r.B.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", r.DeltaPct)
}

func pText(r Row) string {
	switch {
	case r.A.N < 2 || r.B.N < 2:
		return "-"
	case r.P < 0.0001:
		return "<0.0001"
	case math.IsNaN(r.P):
		return "?"
	}
	return fmt.Sprintf("%.4f", r.P)
}
