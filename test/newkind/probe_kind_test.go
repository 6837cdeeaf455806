// Package newkind proves docs/architecture.md's checklist for adding a bench kind: a kind
// that exists only in this test, declared in one Profile with its own flags and its own
// results, goes through the real planner, pod builder, summary parser and merge, aggregation,
// report writer, plots and HTML report without any of them naming it.
package newkind

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/summary"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// transportProbe is the test-only kind: a server and a client pod time --probes round trips of
// a payload; the client's summary carries a "probe" part with each round trip's time.
const transportProbe sbv1.Transport = "Probe"

func init() {
	benchkind.Register(benchkind.Profile{
		Transport:          transportProbe,
		DataplaneTransport: "probe",
		Backend:            "probe-backend",
		Ranks:              benchkind.ServerClient,
		Headline:           sbv1.CellParameters{PayloadBytes: 512, Batch: 1, Pairs: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}},
		Flags: func(_ *sbv1.SpiralBenchSpec, _ sbv1.CellParameters, r benchkind.Rank) []string {
			return []string{"--probes", "3", "--probe-side", r.Name}
		},
		Describe: func(sbv1.CellParameters) string { return " probed" },
		Results:  &probeResults,
	})
}

// probePart is the kind's part of the summary: {"rtt_ns": [..]}.
type probePart struct {
	RTTNs []int64 `json:"rtt_ns"`
}

// probeResults are the kind's result hooks: its summary part becomes the repeat's latency
// (a status field the kind reuses; a kind with a new status shape adds its type under api/),
// probe.csv, a line per cell after the table, a heatmap and an HTML table.
var probeResults = benchkind.Results{
	SummaryKey: "probe",
	Apply: func(raw json.RawMessage, into *sbv1.RepeatResult) error {
		var p probePart
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if len(p.RTTNs) == 0 {
			return fmt.Errorf("probe: no round trips")
		}
		s := slices.Sorted(slices.Values(p.RTTNs))
		into.Latency = &sbv1.Latency{MinNanoseconds: s[0], P50Nanoseconds: s[len(s)/2], MaxNanoseconds: s[len(s)-1]}
		return nil
	},
	Has: func(r *sbv1.RepeatResult) bool { return r.Latency != nil },
	WriteRepeat: func(w io.Writer, c sbv1.CellResult, r *sbv1.RepeatResult) error {
		_, err := fmt.Fprintf(w, "cell %d, repeat %d: probe rtt p50 %d ns\n", c.Index, r.Repeat, r.Latency.P50Nanoseconds)
		return err
	},
	Files: []benchkind.File{{Name: "probe.csv", Render: func(sb *sbv1.SpiralBench) ([]byte, error) {
		var rows [][]string
		for _, c := range sb.Status.CellResults {
			for _, r := range c.RepeatResults {
				if r.Latency != nil {
					rows = append(rows, []string{fmt.Sprint(c.Index), fmt.Sprint(r.Repeat), fmt.Sprint(r.Latency.P50Nanoseconds)})
				}
			}
		}
		return benchkind.CSVOf([]string{"cell", "rep", "rtt_p50_ns"}, rows)
	}}},
	Heatmaps: func(sb *sbv1.SpiralBench) []benchkind.Heatmap {
		return []benchkind.Heatmap{{Name: "probe-matrix", Title: "probe", Devices: []int32{0, 1},
			GBps: [][]float64{{math.NaN(), 1}, {2, math.NaN()}}, Repeats: 1}}
	},
	Tables: func(sb *sbv1.SpiralBench) []benchkind.Table {
		return []benchkind.Table{{ID: "probe-table", Title: "Probe round trips", Columns: []string{"cell"},
			Rows: [][]benchkind.TableCell{{{Value: "0"}}}}}
	},
}

// fakeDataplane stands in for spiral-dataplane: it reads the flags a pod was given and writes
// the summary line the kind's data plane would (the client times the round trips).
func fakeDataplane(t *testing.T, args []string, repeat int32) string {
	flag := func(name string) string {
		i := slices.Index(args, name)
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("pod args lack %s: %v", name, args)
		}
		return args[i+1]
	}
	role, side := args[0], flag("--probe-side")
	s := map[string]any{"v": 1, "transport": flag("--transport"), "role": role, "state": "Valid", "reason": "",
		"seconds_milli": 1000, "payload_bytes": json.Number(flag("--payload-bytes")), "pairs": 1, "target_mbps": 0,
		"cpu_master_mpct": -1, "cpu_tx_mpct": -1, "cpu_rx_mpct": -1, "gpu_sm_mpct": -1, "gpu_mem_mpct": -1}
	if side == "client" {
		s["tx_bytes"], s["tx_packets"], s["tx_mbps"] = 3*512, 3, 1
		s["probe"] = probePart{RTTNs: []int64{9000 + int64(repeat), 7000, 8000}}
	} else {
		s["rx_bytes"], s["rx_packets"], s["rx_mbps"] = 3*512, 3, 1
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestATestOnlyKindGoesFromPlanToReport(t *testing.T) {
	spec := sbtesting.MakeSpiralBench("probe", "lab").Transport(transportProbe).Preset(sbv1.PresetSmoke).Repeats(2).Obj()
	cells, err := plan.Expand(&spec.Spec)
	if err != nil || len(cells) != 1 || cells[0].PayloadBytes != 512 || !cells[0].Headline {
		t.Fatalf("plan: the headline cell from the profile, got %+v, %v", cells, err)
	}
	kind, _ := benchkind.For(&spec.Spec)
	var allArgs [][]string
	sb, err := fixture.Finish(spec, func(p sbv1.CellParameters, repeat int32) sbv1.RepeatResult {
		in, err := cellpod.NewInput(spec, plan.Cell{Index: 0, Headline: true, CellParameters: p}, repeat, 1, 0, []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		var parts []summary.Part
		for _, rank := range in.Ranks {
			args := cellpod.Args(in, rank, "10.0.0.1")
			allArgs = append(allArgs, args)
			lines, err := summary.ParseRepeats(fakeDataplane(t, args, repeat))
			if err != nil || len(lines) != 1 {
				t.Fatalf("summary of %s: %v", rank.Name, err)
			}
			if d := lines[0].Mismatch(summary.Echo{Transport: kind.DataplaneTransport, PayloadBytes: int64(p.PayloadBytes),
				Pairs: int64(kind.Pairs(&spec.Spec, p))}); d != "" {
				t.Fatalf("echo: %s", d)
			}
			parts = append(parts, summary.Part{Summary: &lines[0], Receives: rank.Receives, Sends: rank.Sends})
		}
		return summary.Merge(parts, repeat, 0)
	})
	if err != nil {
		t.Fatal(err)
	}

	// pod args: the kind's --transport and its own flags, per rank
	if len(allArgs) != 4 || allArgs[0][0] != "server" || allArgs[1][0] != "client" {
		t.Fatalf("two ranks per repeat, server then client: %v", allArgs)
	}
	for _, a := range allArgs {
		if j := strings.Join(a, " "); !strings.Contains(j, "--transport probe") || !strings.Contains(j, "--probes 3") {
			t.Errorf("args lack the kind's flags: %s", j)
		}
	}
	// status: the kind's part of the client's summary, merged into each repeat, aggregated
	c := sb.Status.CellResults[0]
	if c.State != sbv1.CellValid || len(c.RepeatResults) != 2 {
		t.Fatalf("cell = %+v", c)
	}
	if l := c.RepeatResults[1].Latency; l == nil || l.MinNanoseconds != 7000 || l.P50Nanoseconds != 8000 || l.MaxNanoseconds != 9001 {
		t.Fatalf("the probe part did not reach status: %+v", l)
	}
	if c.Latency == nil || c.Latency.P50Nanoseconds != 8000 {
		t.Errorf("the cell's aggregate latency = %+v", c.Latency)
	}
	// a malformed part refuses the summary, as a malformed counter does
	if _, err := summary.Parse(strings.Replace(fakeDataplane(t, allArgs[1], 0), `"rtt_ns":[`, `"rtt_ns":["x",`, 1)); err == nil {
		t.Error("a malformed probe part parsed")
	}

	// CSV: runs.csv names the kind's backend; probe.csv is the kind's own file
	files, err := report.Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := csv.NewReader(bytes.NewReader(files["runs.csv"])).ReadAll()
	if err != nil || len(runs) != 3 || runs[1][1] != "probe-backend" {
		t.Fatalf("runs.csv = %v, %v", runs, err)
	}
	if got := string(files["probe.csv"]); got != "cell,rep,rtt_p50_ns\n0,0,8000\n0,1,8000\n" {
		t.Errorf("probe.csv = %q", got)
	}
	// report: the table names the cell the kind's way and prints the kind's lines after it
	var table bytes.Buffer
	if err := report.WriteTable(&table, sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"512 B probed", "cell 0, repeat 1: probe rtt p50 8000 ns"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	// figures and the HTML report: the kind's heatmap and table
	if hs := plots.Heatmaps(sb); len(hs) != 1 || hs[0].Name != "probe-matrix" {
		t.Errorf("heatmaps = %+v", hs)
	}
	html, err := htmlreport.Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := html["plots/probe-matrix.svg"]; !ok {
		t.Errorf("no plots/probe-matrix.svg among %d files", len(html))
	}
	if page := string(html[htmlreport.FileName]); !strings.Contains(page, `<table id="probe-table">`) {
		t.Error("report.html lacks the kind's table")
	}
}
