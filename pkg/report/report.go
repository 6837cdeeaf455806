// Package report renders a finished bench for the results bucket: runs.csv in DAQIRI's
// columns (so rows compare with its published tables), results.jsonl with one record per
// repeat, failures.csv with the cells that measured nothing trustworthy, verdict.json,
// environment.json and the spec.
package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// CSVColumns are DAQIRI's columns, then SpiralBench's own: the data plane's definition,
// dataplane/src/output/runs_csv_columns.def, which TestCSVColumnsAreTheDataPlanesDefinition
// holds this list to.
var CSVColumns = []string{
	"lang", "backend", "post_process", "payload", "batch", "pairs", "target_gbps", "rep", "seconds",
	"packets", "bytes", "pps", "gbps", "rx_gbps", "drops", "drops_kind", "cpu_master_pct", "cpu_tx_pct",
	"cpu_rx_pct", "gpu_sm_pct", "gpu_mem_pct", "post_process_gemm_dim", "post_process_sync",
	"cell", "headline", "state", "attempt", "tx_queues", "rx_queues", "loss_ppm",
	"tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "seq_gaps", "socket_retrans",
	"wire", "tx_bytes_phy", "rx_bytes_phy", "links",
	"lat_min_ns", "lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns", "unknown", "ndr_mbps", "pdr_mbps",
}

// DAQIRIColumns is how many of CSVColumns are DAQIRI's.
const DAQIRIColumns = 23

// RunID names one run's folder: its start time and the bench's UID, so re-created benches of
// the same name never overwrite each other.
func RunID(sb *sbv1.SpiralBench) string {
	uid := string(sb.UID)
	if len(uid) > 8 {
		uid = uid[:8]
	}
	if sb.Status.StartTime == nil {
		return "unstarted-" + uid
	}
	return sb.Status.StartTime.UTC().Format("20060102T150405Z") + "-" + uid
}

// Prefix is the object key prefix: <prefix>/<namespace>/<name>/<run-id>/.
func Prefix(sb *sbv1.SpiralBench, prefix string) string {
	var parts []string
	if p := strings.Trim(prefix, "/"); p != "" {
		parts = append(parts, p)
	}
	return strings.Join(append(parts, sb.Namespace, sb.Name, RunID(sb)), "/") + "/"
}

// Files renders every object of a finished bench, keyed by file name.
func Files(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	csvData, err := CSV(sb)
	if err != nil {
		return nil, err
	}
	jsonl, err := JSONLines(sb)
	if err != nil {
		return nil, err
	}
	env, err := json.MarshalIndent(map[string]any{
		"environment": sb.Status.Environment, "nodes": sb.Status.Nodes,
		"startTime": sb.Status.StartTime, "completionTime": sb.Status.CompletionTime,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	spec, err := json.MarshalIndent(map[string]any{
		"apiVersion": sbv1.GroupVersion.String(), "kind": "SpiralBench",
		"metadata": map[string]any{"name": sb.Name, "namespace": sb.Namespace, "uid": sb.UID, "generation": sb.Generation},
		"spec":     sb.Spec,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"runs.csv": csvData, "results.jsonl": jsonl, "environment.json": env, "spec.json": spec}
	for name, render := range map[string]func(*sbv1.SpiralBench) ([]byte, error){FailuresFile: FailuresCSV, VerdictFile: VerdictJSON} {
		if files[name], err = render(sb); err != nil {
			return nil, err
		}
	}
	// the kind's own files (NCCL's and GPUCopy's sweeps, the raw forward mode's), beside runs.csv
	for _, f := range benchkind.ResultsOf(sb.Spec.Transport).Files {
		data, err := f.Render(sb)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if data != nil {
			files[f.Name] = data
		}
	}
	return files, nil
}

// CSV has one row per measured repeat, as DAQIRI's runs.csv: a cell that failed before it
// measured a repeat has no row (failures.csv and results.jsonl name it); one that failed later
// keeps the rows of the repeats it measured.
func CSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(CSVColumns); err != nil {
		return nil, err
	}
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if err := w.Write(row(sb, c, r)); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// row writes one repeat the way the data plane's output/csv_row.cpp does: DAQIRI's values in
// DAQIRI's columns (docs/api.md, "runs.csv"), what its form would lose in ours.
func row(sb *sbv1.SpiralBench, c sbv1.CellResult, r sbv1.RepeatResult) []string {
	p := c.Parameters
	kind, _ := benchkind.Lookup(sb.Spec.Transport)
	var unknown []string
	pct := func(m int32, known bool, column string) string {
		if !known || m < 0 {
			unknown = append(unknown, column)
			return "0" // DAQIRI writes 0 where it measured nothing
		}
		return figure.MilliPercent.Format(float64(m))
	}
	ms := r.MeasuredMilliseconds
	rate := func(bytes int64) string { // bytes x 8 / seconds / 1e9, as DAQIRI's awk
		if ms <= 0 {
			return "0.000"
		}
		return strconv.FormatFloat(float64(bytes)*8/1e6/float64(ms), 'f', 3, 64)
	}
	packets, bytes := r.TXPackets, r.TXBytes
	if kind.CountsReceiver {
		packets, bytes = r.RXPackets, r.RXBytes
	}
	pps := "0"
	if ms > 0 {
		pps = strconv.FormatFloat(float64(packets)*1000/float64(ms), 'f', 0, 64)
	}
	cpu := r.CPU
	if cpu == nil {
		cpu = &sbv1.CPUBusy{MasterMilliPercent: -1, TXMilliPercent: -1, RXMilliPercent: -1}
	}
	gpu := r.GPU
	if gpu == nil {
		gpu = &sbv1.GPUBusy{SMMilliPercent: -1, MemoryMilliPercent: -1}
	}
	cpuM, cpuT, cpuR := pct(cpu.MasterMilliPercent, true, "cpu_master_pct"), pct(cpu.TXMilliPercent, true, "cpu_tx_pct"), pct(cpu.RXMilliPercent, true, "cpu_rx_pct")
	gpuS, gpuM := pct(gpu.SMMilliPercent, true, "gpu_sm_pct"), pct(gpu.MemoryMilliPercent, true, "gpu_mem_pct")
	// DAQIRI records its GEMM_DIM (default 1024) whatever the workload, and "default" for an
	// unset SYNC_INTERVAL.
	gemmDim, sync := "1024", "default"
	if w := sb.Spec.Workload; w != nil {
		if w.GEMMN > 0 {
			gemmDim = strconv.Itoa(int(w.GEMMN))
		}
		if w.SyncInterval > 0 {
			sync = strconv.Itoa(int(w.SyncInterval))
		}
	}
	wire, phyTX, phyRX, links := "", int64(0), int64(0), max(int(sb.Spec.Topology.Links), 1)
	if w := r.Wire; w != nil {
		wire, phyTX, phyRX = summary.WireWord(w.Verdict), w.TXBytesPHY, w.RXBytesPHY
		links = max(len(w.Links), 1)
	}
	seqGaps, retrans := "", ""
	if kind.Sequenced {
		seqGaps = itoa(r.SequenceGaps)
	}
	if kind.SocketRetrans {
		retrans = itoa(r.SocketRetrans)
	}
	ndr, pdr := "", ""
	if r.Search != nil {
		ndr = itoa(r.Search.NDRMbps)
		if r.Search.PDRMbps != nil {
			pdr = itoa(*r.Search.PDRMbps)
		}
	}
	lat := []string{"", "", "", "", ""}
	if l := r.Latency; l != nil {
		lat = []string{itoa(l.MinNanoseconds), itoa(l.P50Nanoseconds), itoa(l.P99Nanoseconds), itoa(l.P999Nanoseconds), itoa(l.MaxNanoseconds)}
	}
	return []string{
		"cpp", Backend(sb.Spec.Transport), p.Workload.DataplaneName(), itoa(int64(p.PayloadBytes)), itoa(int64(p.Batch)),
		itoa(int64(p.Pairs)), TargetGbps(perPairMbps(sb.Spec.Matrix.TargetRateScope, p)), itoa(int64(r.Repeat) + 1),
		strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64),
		itoa(packets), itoa(bytes), pps, rate(bytes), rate(r.RXBytes),
		itoa(r.Drops), r.DropsKind, cpuM, cpuT, cpuR, gpuS, gpuM, gemmDim, sync,
		itoa(int64(c.Index)), strconv.FormatBool(c.Headline), string(r.State), itoa(int64(r.Attempt)),
		itoa(int64(p.Queues.TX)), itoa(int64(p.Queues.RX)), itoa(r.LossPPM),
		itoa(r.TXPackets), itoa(r.TXBytes), itoa(r.RXPackets), itoa(r.RXBytes), seqGaps, retrans,
		wire, itoa(phyTX), itoa(phyRX), itoa(int64(links)),
		lat[0], lat[1], lat[2], lat[3], lat[4],
		strings.Join(unknown, ";"), ndr, pdr,
	}
}

// TargetGbps writes a target as DAQIRI's integer Gb/s (10, 0); a fraction of a Gb/s keeps up
// to three decimals (2.5).
func TargetGbps(mbps float64) string {
	s := figure.Mbps.FormatPrec(mbps, 3)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// perPairMbps is DAQIRI's target_gbps meaning, each pair's target, whatever the bench's scope.
func perPairMbps(scope sbv1.TargetRateScope, p sbv1.CellParameters) float64 {
	if scope == sbv1.TargetRateTotal && p.Pairs > 1 {
		return float64(p.TargetRateMbps) / float64(p.Pairs)
	}
	return float64(p.TargetRateMbps)
}

// Backend is DAQIRI's name for a transport's engine (the kind's profile says it).
func Backend(t sbv1.Transport) string {
	if k, ok := benchkind.Lookup(t); ok {
		return k.Backend
	}
	return strings.ToLower(string(t))
}

// record is one line of results.jsonl.
type record struct {
	Bench      string              `json:"bench"`
	Namespace  string              `json:"namespace"`
	RunID      string              `json:"runID"`
	Transport  sbv1.Transport      `json:"transport"`
	Cell       int32               `json:"cell"`
	Headline   bool                `json:"headline"`
	CellState  sbv1.CellState      `json:"cellState"`
	Message    string              `json:"message,omitempty"`
	Parameters sbv1.CellParameters `json:"parameters"`
	Result     *sbv1.RepeatResult  `json:"result,omitempty"`
}

// JSONLines has one record per repeat, and one per failed cell without repeats.
func JSONLines(sb *sbv1.SpiralBench) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, c := range sb.Status.CellResults {
		base := record{Bench: sb.Name, Namespace: sb.Namespace, RunID: RunID(sb), Transport: sb.Spec.Transport,
			Cell: c.Index, Headline: c.Headline, CellState: c.State, Message: c.Message, Parameters: c.Parameters}
		if len(c.RepeatResults) == 0 {
			if err := enc.Encode(base); err != nil {
				return nil, err
			}
		}
		for i := range c.RepeatResults {
			rec := base
			rec.Result = &c.RepeatResults[i]
			if err := enc.Encode(rec); err != nil {
				return nil, fmt.Errorf("cell %d: %w", c.Index, err)
			}
		}
	}
	return buf.Bytes(), nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
