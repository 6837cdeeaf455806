package htmlreport

import (
	"fmt"
	"sort"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Pivot is one of DAQIRI's tables: a row per payload, a column per value of the dimension the
// bench varies besides the payload, each cell RX Gb/s mean ± std with its loss beneath.
type Pivot struct {
	Title   string
	Column  string // what the columns are: pairs, batch, queues, target, workload
	Columns []string
	Rows    []PivotRow
}

type PivotRow struct {
	Payload string
	Cells   []PivotCell
}

// PivotCell is one cell's figures; Missing says why there are none.
type PivotCell struct {
	Value, Loss, Missing string
}

// dimension is a cell coordinate a pivot can spread over its columns.
type dimension struct {
	name  string
	value func(p sbv1.CellParameters) string
}

var dimensions = []dimension{
	{"pairs", func(p sbv1.CellParameters) string { return fmt.Sprint(p.Pairs) }},
	{"batch", func(p sbv1.CellParameters) string { return fmt.Sprint(p.Batch) }},
	{"queues", func(p sbv1.CellParameters) string { return fmt.Sprintf("%dt%dr", p.Queues.TX, p.Queues.RX) }},
	{"target " + figure.Mbps.Shown, func(p sbv1.CellParameters) string { return figure.Mbps.FormatPrec(float64(p.TargetRateMbps), -1) }},
	{"workload", func(p sbv1.CellParameters) string { return string(p.Workload) }},
	{"workload batch", func(p sbv1.CellParameters) string { return fmt.Sprint(p.WorkloadBatchBytes) }},
	{"forward work", func(p sbv1.CellParameters) string { return string(p.ForwardWork) }},
	{"memory", func(p sbv1.CellParameters) string { return string(p.Memory) }},
}

// pivots groups a bench's cells as DAQIRI's summary tables read: the column dimension is the
// first one that varies; cells that differ in further dimensions get a table each.
func pivots(cells []sbv1.CellResult) []Pivot {
	if len(cells) < 2 {
		return nil
	}
	col := -1
	for i, d := range dimensions {
		if distinct(cells, d) > 1 {
			col = i
			break
		}
	}
	if col < 0 && distinctPayloads(cells) < 2 {
		return nil
	}
	var order []string
	groups := map[string][]sbv1.CellResult{}
	for _, c := range cells {
		var rest []string
		for i, d := range dimensions {
			if i != col && distinct(cells, d) > 1 {
				rest = append(rest, d.name+" "+d.value(c.Parameters))
			}
		}
		key := strings.Join(rest, ", ")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
	}
	var out []Pivot
	for _, key := range order {
		out = append(out, pivotOf(groups[key], col, key))
	}
	return out
}

func pivotOf(cells []sbv1.CellResult, col int, title string) Pivot {
	p := Pivot{Title: title, Column: "—"}
	colOf := func(c sbv1.CellResult) string { return "" }
	if col >= 0 {
		p.Column, colOf = dimensions[col].name, func(c sbv1.CellResult) string { return dimensions[col].value(c.Parameters) }
	}
	var payloads []int32
	seenPayload, seenCol := map[int32]bool{}, map[string]bool{}
	byKey := map[string]sbv1.CellResult{}
	for _, c := range cells {
		if !seenPayload[c.Parameters.PayloadBytes] {
			seenPayload[c.Parameters.PayloadBytes] = true
			payloads = append(payloads, c.Parameters.PayloadBytes)
		}
		if v := colOf(c); !seenCol[v] {
			seenCol[v] = true
			p.Columns = append(p.Columns, v)
		}
		byKey[fmt.Sprintf("%d/%s", c.Parameters.PayloadBytes, colOf(c))] = c
	}
	sort.Slice(payloads, func(i, j int) bool { return payloads[i] < payloads[j] })
	for _, payload := range payloads {
		row := PivotRow{Payload: bytesText(payload)}
		for _, v := range p.Columns {
			c, ok := byKey[fmt.Sprintf("%d/%s", payload, v)]
			row.Cells = append(row.Cells, pivotCell(c, ok))
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

func pivotCell(c sbv1.CellResult, planned bool) PivotCell {
	switch {
	case !planned:
		return PivotCell{Missing: "not in the plan"}
	case c.State == sbv1.CellFailed:
		return PivotCell{Missing: "failed: no measurement"}
	case figure.Rx.Stat(&c) == nil:
		return PivotCell{Missing: "no RX figure"}
	}
	cell := PivotCell{Value: figure.Rx.StatText(&c, " ± ", missing), Loss: "loss " + figure.Loss.Unit.FormatPrec(float64(c.LossPPM), 4) + " " + figure.Loss.Unit.Shown}
	if c.State == sbv1.CellInvalid {
		cell.Loss += " · Invalid"
	}
	return cell
}

func distinct(cells []sbv1.CellResult, d dimension) int {
	seen := map[string]bool{}
	for _, c := range cells {
		seen[d.value(c.Parameters)] = true
	}
	return len(seen)
}

func distinctPayloads(cells []sbv1.CellResult) int {
	seen := map[int32]bool{}
	for _, c := range cells {
		seen[c.Parameters.PayloadBytes] = true
	}
	return len(seen)
}

// bytesText writes a payload as DAQIRI's tables do: 8000 B, 1 MiB.
func bytesText(b int32) string {
	if b >= 1<<20 && b%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d B", b)
}
