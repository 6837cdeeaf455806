// Package htmlreport renders one run of a bench as a single HTML page (html/template): the verdict and the rules that held or broke, the cells' table, the figures of
// pkg/plots (and a GPUCopy bench's GPU-to-GPU heatmaps and host aggregate), the environment and
// the spec. Its charts are interactive (uPlot and the chart data inlined, so the file needs no
// network), each over its static figure plots/<name>.svg beside it, which shows without JavaScript.
package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/environment"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// FileName is the report's name in the bucket and in `sbctl report -o DIR`.
const FileName = "report.html"

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{"cpu": report.CPUShare, "gpu": report.GPUShare,
	"divf": func(ppm int64) float64 { return figure.PPM.Scaled(float64(ppm)) },
	"us":   func(ns int64) float64 { return figure.Nanoseconds.Scaled(float64(ns)) },
	"mbps": func(m int64) string { return figure.Mbps.Format(float64(m)) }}).Parse(pageText))

// Files renders the report and every figure it shows, keyed by their paths under the run's
// folder: report.html and plots/<name>.png|svg. The page links the run's data files
// (pkg/report's runs.csv, ...), which the uploader and `sbctl get` write beside it.
func Files(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	return files(sb, true)
}

// Standalone is Files for a folder without the data files (`sbctl report`): the page names
// them and where they are, and links only what is written.
func Standalone(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	return files(sb, false)
}

func files(sb *sbv1.SpiralBench, dataBeside bool) (map[string][]byte, error) {
	files, err := plots.Files(sb)
	if err != nil {
		return nil, err
	}
	html, err := render(sb, dataBeside)
	if err != nil {
		return nil, err
	}
	files[FileName] = html
	return files, nil
}

// Render is the report page alone, as it reads in the run's folder.
func Render(sb *sbv1.SpiralBench) ([]byte, error) { return render(sb, true) }

func render(sb *sbv1.SpiralBench, dataBeside bool) ([]byte, error) {
	spec, err := yaml.Marshal(sb.Spec)
	if err != nil {
		return nil, err
	}
	v := view{Bench: sb, RunID: report.RunID(sb), Spec: string(spec), Verdict: verdict(sb), DataBeside: dataBeside}
	v.Rules = rules(sb, v.Verdict)
	v.Charts = plots.Charts(sb)
	if v.Interactive, err = interactive(v.Charts); err != nil {
		return nil, err
	}
	v.Heatmaps = plots.Heatmaps(sb)
	if tables := benchkind.ResultsOf(sb.Spec.Transport).Tables; tables != nil {
		v.KindTables = tables(sb)
	}
	for _, c := range sb.Status.CellResults {
		r := row{CellResult: c, Parameters: benchkind.Parameters(sb.Spec.Transport, c.Parameters), Reason: readable(c.Message),
			RX: figure.Rx.StatText(&c, " ± ", missing), TX: figure.Tx.StatText(&c, " ± ", missing)}
		r.BoundBy, r.BoundDetail = boundBy(sb, &c)
		r.SpreadText, r.SpreadTitle, r.Noisy = spread(&c)
		v.Cells = append(v.Cells, r)
		v.Has.CPU = v.Has.CPU || c.CPU != nil
		v.Has.GPU = v.Has.GPU || (c.GPU != nil && c.GPU.SMMilliPercent >= 0)
		v.Has.Latency = v.Has.Latency || c.Latency != nil
		v.Has.Wire = v.Has.Wire || c.Wire != ""
		v.Has.Message = v.Has.Message || r.Reason != ""
		for i, rep := range c.RepeatResults {
			v.Repeats = append(v.Repeats, repeatRow{Cell: c.Index, Repeat: i + 1, Parameters: r.Parameters, RepeatResult: rep,
				Reason: readable(rep.Message)})
		}
	}
	v.Pivots = pivots(sb.Status.CellResults)
	v.NoisyNote = noisyNote(sb)
	v.MTUNote = mtuNote(sb)
	if report.AnyCPUNotPinned(sb.Status.CellResults) {
		v.CPUNote = report.CPUNote
	}
	if e := sb.Status.Environment; e != nil {
		node := e.Node
		if node == "" {
			node = "not captured"
		}
		v.Environment = append([][2]string{{"node", node}}, environment.Values(e)...)
		if e.CaptureNote != "" { // what the capture lost on its way: said, never hidden
			v.Environment = append(v.Environment, [2]string{"captureNote", e.CaptureNote})
		}
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type view struct {
	Bench *sbv1.SpiralBench
	RunID string
	// DataBeside: the run's data files are in the page's folder, so it links them.
	DataBeside bool
	Verdict    Verdict
	Rules      []Rule
	Cells      []row
	Repeats    []repeatRow
	Pivots     []Pivot
	// Has says which optional columns hold a figure in some cell; empty ones are left out.
	Has     struct{ CPU, GPU, Latency, Wire, Message bool }
	MTUNote string // the spec's MTU was not the link's
	CPUNote string // why a CPU figure reads "unpinned", when one does
	// NoisyNote names the cells flagged noisy and what the flag means; empty when none is.
	NoisyNote string
	Charts    []plots.Chart
	// Interactive is what draws Charts in the page; nil without a chart.
	Interactive *assets
	// Heatmaps and KindTables are what the bench's kind declares (a GPUCopy bench's GPU-to-GPU
	// matrices and its all-GPU host copies).
	Heatmaps    []plots.Heatmap
	KindTables  []benchkind.Table
	Environment [][2]string
	Spec        string
}

type row struct {
	sbv1.CellResult
	Parameters string
	Reason     string // Message as a sentence
	RX, TX     string // the throughput figures as the page prints them
	// BoundBy is what held the headline figure back in one line; BoundDetail the ceiling's
	// arithmetic, the cell's tooltip.
	BoundBy, BoundDetail string
	// SpreadText is the headline figure's CV in percent, SpreadTitle what it is of; Noisy
	// marks a cell whose spread exceeds the spec's threshold.
	SpreadText, SpreadTitle string
	Noisy                   bool
}

// boundBy is pkg/explain's line for a cell and, for its tooltip, the bound in full with the
// ceiling's model.
func boundBy(sb *sbv1.SpiralBench, c *sbv1.CellResult) (string, string) {
	e := explain.Cell(sb, c)
	detail := e.BoundBy
	if e.Model != "" {
		detail += "; ceiling: " + e.Name + ": " + e.Model
	}
	if e.Measured == nil && e.Figure != "" {
		return missing, detail // the page's dash for a cell that measured nothing
	}
	return e.Short(), detail
}

// missing stands where a cell has no figure: the page's en dash.
const missing = "–"

type repeatRow struct {
	sbv1.RepeatResult
	Cell       int32
	Repeat     int
	Parameters string
	Reason     string
}

// Verdict is what the Passed condition says (acceptance.Decide wrote it), split into the cells
// that failed or were invalid and the rules that held and broke.
type Verdict struct {
	// Word is PASSED, FAILED or PENDING (no verdict yet).
	Word, Reason string
	Held, Broken []string
	Summary      string
	// Cells counts the cells by outcome ("11/20 ok, 9 failed"); Unmeasured names those that
	// failed or were invalid, as the condition does.
	Cells, Unmeasured string
	Passed, Known     bool
}

func verdict(sb *sbv1.SpiralBench) Verdict {
	cells := sb.Status.CellsSummary
	if cells == "" {
		cells = acceptance.CellsSummary(sb.Status.Cells)
	}
	c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	if c == nil {
		return Verdict{Word: "PENDING", Cells: cells, Summary: fmt.Sprintf("phase %s, cells %s: no verdict yet", sb.Status.Phase, sb.Status.Progress)}
	}
	v := Verdict{Known: true, Passed: c.Status == "True", Reason: c.Reason, Summary: c.Message, Cells: cells}
	v.Word = map[bool]string{true: "PASSED", false: "FAILED"}[v.Passed]
	v.Unmeasured, v.Broken, v.Held = acceptance.Split(c.Message)
	if v.Unmeasured != "" || v.Broken != nil || v.Held != nil {
		v.Summary = "cells " + cells // the lists below carry the detail
	}
	return v
}

// Rule is one acceptance rule of the spec and how it fared.
type Rule struct {
	Name, Check, Cells string
	// State is held, broken or "not judged" (no verdict yet).
	State string
}

// rules lists the spec's rules; a rule broke when the verdict names it among the broken.
func rules(sb *sbv1.SpiralBench, v Verdict) []Rule {
	if sb.Spec.Acceptance == nil {
		return nil
	}
	var out []Rule
	for _, r := range sb.Spec.Acceptance.Rules {
		row := Rule{Name: r.Name, Check: ruleCheck(r), Cells: ruleCells(r.Cells), State: "held"}
		switch {
		case !v.Known:
			row.State = "not judged"
		case slices.ContainsFunc(v.Broken, func(b string) bool { return strings.HasPrefix(b, r.Name+":") }):
			row.State = "broken"
		}
		out = append(out, row)
	}
	return out
}

// WriteDir writes files (as Files returns them) under dir, creating plots/.
func WriteDir(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
