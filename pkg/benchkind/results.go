package benchkind

import (
	"encoding/json"
	"io"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Results is how a kind's own results come back, beside the counters every kind shares: its
// part of the data plane's summary, what that part adds to a repeat's status, its files in the
// bucket, its lines after the cell table and its figures. It mirrors the data plane's record
// and summary hooks of a kind (dataplane/src/kinds/bench_kind.hpp). pkg/summary, pkg/report,
// pkg/plots and sbctl loop over what a kind declares here; every field is optional, and a kind
// that measures only the shared counters leaves Profile.Results nil.
type Results struct {
	// SummaryKey is the kind's object in a rank's summary JSON ("nccl", "gpucopy").
	SummaryKey string
	// Apply decodes the kind's part of one rank's summary into a repeat's result. It runs once
	// when a summary is parsed, on a scratch result, so a malformed part refuses the whole
	// summary as a malformed counter does; then on the repeat, from the first rank (in rank
	// order) that carries the part.
	Apply func(part json.RawMessage, into *sbv1.RepeatResult) error
	// Has says whether a repeat carries the kind's results (for the table's per-cell section).
	Has func(r *sbv1.RepeatResult) bool
	// WriteRepeat prints a cell's chosen repeat (its last valid one carrying results, or its
	// last one) after the cell table: sbctl results, report.WriteTable.
	WriteRepeat func(w io.Writer, c sbv1.CellResult, r *sbv1.RepeatResult) error
	// Files are the kind's own files in the bucket beside runs.csv, in this order.
	Files []File
	// Heatmaps are the kind's matrix figures (plots/<Name>.png|svg and the HTML report).
	Heatmaps func(sb *sbv1.SpiralBench) []Heatmap
	// Tables are the kind's tables in the HTML report, after its figures.
	Tables func(sb *sbv1.SpiralBench) []Table
}

// Table is one of a kind's tables in the HTML report.
type Table struct {
	// ID is the table's HTML id; Title its heading.
	ID, Title string
	Columns   []string
	Rows      [][]TableCell
}

// TableCell is one value; Text ones are set left-aligned, as words rather than figures.
type TableCell struct {
	Value string
	Text  bool
}

// File is one of a kind's files in the results bucket. Render returns nil for a bench that has
// nothing to put in it; the file is then not written.
type File struct {
	Name   string
	Render func(sb *sbv1.SpiralBench) ([]byte, error)
}

// Heatmap is a square matrix figure before it is drawn (pkg/plots draws it): GB/s from each
// source (row) to each destination (column).
type Heatmap struct {
	// Name is the file stem: plots/<Name>.png and .svg.
	Name, Title string
	// Devices label the rows and columns.
	Devices []int32
	// GBps[src][dst]; NaN where nothing was measured.
	GBps [][]float64
	// Paths name what connects each pair ("0-1 NV18"), for the caption.
	Paths []string
	// Repeats averaged.
	Repeats int
}

// ResultKinds lists the registered kinds that declare Results, by transport.
func ResultKinds() []Profile {
	var out []Profile
	for _, t := range Transports() {
		if p := registry[t]; p.Results != nil {
			out = append(out, p)
		}
	}
	return out
}

// ResultsOf is the Results of a transport's kind; an empty one for a kind without its own.
func ResultsOf(t sbv1.Transport) Results {
	if p, ok := registry[t]; ok && p.Results != nil {
		return *p.Results
	}
	return Results{}
}
