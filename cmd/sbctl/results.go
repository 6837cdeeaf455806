package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// outputFormats are the -o values of results; "" is the table.
var outputFormats = []string{"csv", "json", "yaml", "wide"}

// resultsLegend explains the table's columns, for --help.
const resultsLegend = `Columns: CELL is the cell's index in the plan (* the headline cell, the one DAQIRI reports);
PARAMETERS its coordinates (payload, batch, pairs, queues, target rate, workload);
STATE Valid, Invalid (ran, but the measurement cannot be trusted) or Failed (no result within
the retries); RX/TX Gb/s the mean ± sample standard deviation over the repeats; LOSS % the
application loss; DROPS the drops DAQIRI's way, with their source; CPU TX/RX % the busy share of
the pinned cores ("unpinned": that side pinned none); GPU SM % the GPU's busy share with a
workload ("-": no GPU work); WIRE the wire proof from the NICs' PHY counters; REPEATS
measured/attempts (3/1: three repeats measured in one attempt; a retry adds an attempt); SPREAD %
the headline figure's coefficient of variation over the Valid repeats (std dev / mean; "-": fewer
than two), "noisy" above spec.run.noisySpreadPercent (a flag: a rule on RxMbpsCVMilliPercent can
fail the bench for it); BOUND BY
what held the headline figure back: the fraction of its physical ceiling and the component that
sets it, a saturated core or GPU, or why the ceiling is unknown (sbctl explain says more).

Output formats: csv is runs.csv, the file DAQIRI's scripts read (one row per repeat); json and
yaml are the results (verdict, cells, environment, artifacts), not the whole object; wide adds
packet rates, every role's CPU, GPU memory, latency percentiles and each cell's wall time.`

func newResults(k *kube) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use: "results [NAMESPACE/]NAME", Short: "Print a bench's results (-o csv|json|yaml|wide)", Args: cobra.ExactArgs(1),
		Long: "Print a bench's results: the cell table, the verdict and where the bucket copy is.\n\n" + resultsLegend,
		Example: "  sbctl results tcp-sweep\n  sbctl results tcp-sweep -o wide\n" +
			"  sbctl results tcp-sweep -o csv > runs.csv      # DAQIRI's columns first\n" +
			"  sbctl results tcp-sweep -o json | jq '.cells[] | {index, state, rxMbps}'",
		ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outputFormats...); err != nil {
				return err
			}
			sb, err := k.get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printBench(cmd.OutOrStdout(), sb, output)
		},
	}
	addOutputFlag(cmd, &output, outputFormats...)
	return cmd
}

func addOutputFlag(cmd *cobra.Command, output *string, formats ...string) {
	cmd.Flags().StringVarP(output, "output", "o", "", fmt.Sprintf("output format: one of %v (default: the table)", formats))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

func checkOutput(got string, formats ...string) error {
	if got == "" {
		return nil
	}
	for _, f := range formats {
		if got == f {
			return nil
		}
	}
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %v", got, formats)
}

// benchResults is what -o json|yaml print: the results, not the whole object.
type benchResults struct {
	Bench       string             `json:"bench"`
	Namespace   string             `json:"namespace"`
	RunID       string             `json:"runID"`
	Transport   sbv1.Transport     `json:"transport"`
	Phase       sbv1.Phase         `json:"phase"`
	Cells       sbv1.CellCounts    `json:"cellCounts"`
	Conditions  []metav1.Condition `json:"conditions,omitempty"`
	CellResults []cellResults      `json:"cells"`
	Environment *sbv1.Environment  `json:"environment,omitempty"`
	Artifacts   *sbv1.Artifacts    `json:"artifacts,omitempty"`
}

// cellResults is a cell with its repeats and the figures derived from them, which the API type
// leaves out of JSON (the bench stores its repeats in its attempt results, not its status).
type cellResults struct {
	sbv1.CellResult
	TXMbps           *sbv1.Statistic     `json:"txMbps,omitempty"`
	PacketsPerSecond *sbv1.Statistic     `json:"packetsPerSecond,omitempty"`
	LossPPM          int64               `json:"lossPPM,omitempty"`
	CPU              *sbv1.CPUBusy       `json:"cpu,omitempty"`
	GPU              *sbv1.GPUBusy       `json:"gpu,omitempty"`
	Spread           *sbv1.CellSpread    `json:"spread,omitempty"`
	RepeatResults    []sbv1.RepeatResult `json:"repeatResults,omitempty"`
}

func resultsOf(sb *sbv1.SpiralBench) benchResults {
	cells := make([]cellResults, len(sb.Status.CellResults))
	for i, c := range sb.Status.CellResults {
		cells[i] = cellResults{CellResult: c, TXMbps: c.TXMbps, PacketsPerSecond: c.PacketsPerSecond, LossPPM: c.LossPPM,
			CPU: c.CPU, GPU: c.GPU, Spread: c.Spread, RepeatResults: c.RepeatResults}
	}
	return benchResults{Bench: sb.Name, Namespace: sb.Namespace, RunID: report.RunID(sb), Transport: sb.Spec.Transport,
		Phase: sb.Status.Phase, Cells: sb.Status.Cells, Conditions: sb.Status.Conditions, CellResults: cells,
		Environment: sb.Status.Environment, Artifacts: sb.Status.Artifacts}
}

// printBench writes the bench's results as runs.csv, JSON, YAML or a table.
func printBench(w io.Writer, sb *sbv1.SpiralBench, output string) error {
	switch output {
	case "csv":
		data, err := report.CSV(sb)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "json":
		data, err := json.MarshalIndent(resultsOf(sb), "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(resultsOf(sb))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	fmt.Fprintf(w, "SpiralBench %s/%s: %s %s, cells %s\n", sb.Namespace, sb.Name, sb.Spec.Transport, sb.Status.Phase, cellsSummary(sb))
	var err error
	if output == "wide" {
		err = writeWide(w, sb)
	} else {
		err = report.WriteTable(w, sb)
	}
	if err != nil {
		return err
	}
	for _, t := range []string{sbv1.ConditionPassed, sbv1.ConditionResultsUploaded} {
		if c := meta.FindStatusCondition(sb.Status.Conditions, t); c != nil {
			fmt.Fprintf(w, "%s=%s (%s): %s\n", t, c.Status, c.Reason, c.Message)
		}
	}
	if a := sb.Status.Artifacts; a != nil {
		for _, u := range a.URIs {
			fmt.Fprintln(w, "  ", u)
		}
	}
	return nil
}

// writeWide is the table with every column status has: packet rate, each role's CPU, GPU
// memory, latency percentiles and the cell's wall time.
func writeWide(w io.Writer, sb *sbv1.SpiralBench) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tPARAMETERS\tSTATE\tRX Gb/s\tTX Gb/s\tMpps\tLOSS ppm\tDROPS\tCPU M/TX/RX %\tGPU SM/MEM %\tLAT min/p50/p99/p99.9/max µs\tREPEATS\tSPREAD %\tWALL\tMESSAGE")
	for _, c := range sb.Status.CellResults {
		mark := ""
		if c.Headline {
			mark = "*"
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d %s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", c.Index, mark,
			benchkind.Parameters(sb.Spec.Transport, c.Parameters), c.State, stat(&c, figure.Rx), stat(&c, figure.Tx),
			stat(&c, figure.PacketRate), c.LossPPM, c.Drops, c.DropsKind, cpu(c.CPU), gpu(c.GPU), latency(c.Latency),
			c.Repeats, c.Attempts, report.Spread(&c, "-"), wall(c), c.Message)
	}
	return tw.Flush()
}

// stat is a figure's mean±spread, packed tight for the wide table.
func stat(c *sbv1.CellResult, f figure.Figure) string { return f.StatText(c, "±", "-") }

func cpu(c *sbv1.CPUBusy) string {
	if c == nil {
		return "-"
	}
	return report.CPUShare(c.MasterMilliPercent) + "/" + report.CPUShare(c.TXMilliPercent) + "/" + report.CPUShare(c.RXMilliPercent)
}

func gpu(g *sbv1.GPUBusy) string {
	if g == nil {
		return "-"
	}
	return report.GPUShare(g.SMMilliPercent) + "/" + report.GPUShare(g.MemoryMilliPercent)
}

func latency(l *sbv1.Latency) string {
	if l == nil {
		return "-"
	}
	us := func(ns int64) string { return figure.Nanoseconds.Format(float64(ns)) }
	return us(l.MinNanoseconds) + "/" + us(l.P50Nanoseconds) + "/" + us(l.P99Nanoseconds) + "/" + us(l.P999Nanoseconds) + "/" + us(l.MaxNanoseconds)
}

func wall(c sbv1.CellResult) string {
	if c.StartTime == nil || c.CompletionTime == nil {
		return "-"
	}
	return c.CompletionTime.Sub(c.StartTime.Time).Round(time.Second).String()
}

// cellsSummary counts the cells by outcome ("11/20 ok, 9 failed"), as kubectl get shows them.
func cellsSummary(sb *sbv1.SpiralBench) string {
	if sb.Status.CellsSummary != "" {
		return sb.Status.CellsSummary
	}
	return acceptance.CellsSummary(sb.Status.Cells) // a bench of an operator that did not write it
}
