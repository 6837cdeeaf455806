package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// WriteTable prints a bench's cell results as the seed's tables read: the cell's
// coordinates, RX (and TX) Gb/s as mean ± std, loss, drops, CPU per role and what bounded the
// headline figure (pkg/explain).
func WriteTable(w io.Writer, sb *sbv1.SpiralBench) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	searched := sb.Spec.Run.Search != nil
	header := "CELL\tPARAMETERS\tSTATE\tRX Gb/s\tTX Gb/s\tLOSS %\tDROPS\tCPU TX/RX %\tGPU SM %\tWIRE\tREPEATS\tSPREAD %"
	if searched { // a rate search's findings; RX/TX/loss are then the verification trial's
		header += "\tNDR Gb/s\tPDR Gb/s"
	}
	header += "\tBOUND BY" // last: the widest, and words rather than a figure
	fmt.Fprintln(tw, header)
	for _, c := range sb.Status.CellResults {
		mark := ""
		if c.Headline {
			mark = "*"
		}
		cpu, gpu := "-", "-"
		if c.CPU != nil {
			cpu = CPUShare(c.CPU.TXMilliPercent) + "/" + CPUShare(c.CPU.RXMilliPercent)
		}
		if c.GPU != nil {
			gpu = GPUShare(c.GPU.SMMilliPercent)
		}
		drops := "-"
		if c.Repeats > 0 {
			drops = fmt.Sprintf("%d %s", c.Drops, c.DropsKind)
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%s", c.Index, mark, benchkind.Parameters(sb.Spec.Transport, c.Parameters),
			c.State, figure.Rx.StatText(&c, " ± ", "-"), figure.Tx.StatText(&c, " ± ", "-"), loss(c), strings.TrimSpace(drops), cpu, gpu, wire(c), c.Repeats, c.Attempts,
			Spread(&c, "-"))
		if searched {
			fmt.Fprintf(tw, "\t%s\t%s", ndr(&c), figure.PDR.StatText(&c, " ± ", "-"))
		}
		fmt.Fprintf(tw, "\t%s\n", explain.Cell(sb, &c).Short())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if AnyCPUNotPinned(sb.Status.CellResults) {
		fmt.Fprintln(w, CPUNote)
	}
	var notes cellNotes
	for _, c := range sb.Status.CellResults {
		if c.Message != "" && c.State != sbv1.CellValid {
			notes.add(c.Index, c.Message)
		}
		notes.add(c.Index, wireNote(c))
		notes.add(c.Index, NoisyNote(sb, &c))
	}
	notes.write(w)
	return writeSweeps(w, sb)
}

// wire is the cell's wire verdict as the CSV words it; "-" where the kind does not check.
func wire(c sbv1.CellResult) string {
	if c.Wire == "" {
		return "-"
	}
	return summary.WireWord(c.Wire)
}

// wireNote says why a Valid cell's wire is unverified (the first repeat's note), once per cell.
func wireNote(c sbv1.CellResult) string {
	if c.Wire != sbv1.WireUnverified || c.State != sbv1.CellValid {
		return ""
	}
	for _, r := range c.RepeatResults {
		if r.Wire != nil && r.Wire.Note != "" {
			return r.Wire.Note
		}
	}
	return ""
}

func loss(c sbv1.CellResult) string {
	v, ok := figure.Loss.Cell(&c)
	if !ok {
		return "-"
	}
	return figure.Loss.Unit.Format(v)
}

// ndr is the found no-drop rate as mean ± std, with how many repeats lost even at the lower
// bound or held the upper bound (the cell may hold more).
func ndr(c *sbv1.CellResult) string {
	s := c.Search
	if s == nil {
		return "-"
	}
	out := figure.NDR.StatText(c, " ± ", "-")
	if s.BelowLower > 0 {
		out += fmt.Sprintf(" (%d below lower bound)", s.BelowLower)
	}
	if s.AtUpper > 0 {
		out += fmt.Sprintf(" (%d at upper bound)", s.AtUpper)
	}
	return out
}

// cellNotes prints each distinct note under a table once, with the cells it concerns.
type cellNotes struct {
	order []string
	cells map[string][]string
}

func (n *cellNotes) add(cell int32, note string) {
	if note == "" {
		return
	}
	if n.cells == nil {
		n.cells = map[string][]string{}
	}
	if _, seen := n.cells[note]; !seen {
		n.order = append(n.order, note)
	}
	n.cells[note] = append(n.cells[note], fmt.Sprint(cell))
}

func (n *cellNotes) write(w io.Writer) {
	for _, note := range n.order {
		cells := n.cells[note]
		word := "cell"
		if len(cells) > 1 {
			word = "cells"
		}
		fmt.Fprintf(w, "%s %s: %s\n", word, strings.Join(cells, ", "), note)
	}
}
