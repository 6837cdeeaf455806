// Package report renders a finished bench for the results bucket: runs.csv in DAQIRI's
// columns (so rows compare with its published tables), results.jsonl with one record per
// repeat, environment.json and the spec.
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
)

// CSVColumns are DAQIRI's columns, then SpiralBench's own.
var CSVColumns = []string{
	"lang", "backend", "post_process", "payload", "batch", "pairs", "target_gbps", "rep", "seconds",
	"packets", "bytes", "pps", "gbps", "rx_gbps", "drops", "drops_kind", "cpu_master_pct", "cpu_tx_pct",
	"cpu_rx_pct", "gpu_sm_pct", "gpu_mem_pct", "post_process_gemm_dim", "post_process_sync",
	"cell", "headline", "state", "attempt", "tx_queues", "rx_queues", "loss_ppm",
}

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
	// the sweeps of NCCL and GPUCopy benches, a row per size, beside runs.csv
	for name, render := range map[string]func(*sbv1.SpiralBench) ([]byte, error){
		"collectives.csv": CollectivesCSV, "copies.csv": CopiesCSV} {
		data, err := render(sb)
		if err != nil {
			return nil, err
		}
		if data != nil {
			files[name] = data
		}
	}
	return files, nil
}

// CSV has one row per repeat of every cell, failed cells as a row with state Failed.
func CSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(CSVColumns); err != nil {
		return nil, err
	}
	for _, c := range sb.Status.CellResults {
		reps := c.RepeatResults
		if len(reps) == 0 {
			reps = []sbv1.RepeatResult{{State: c.State, Attempt: c.Attempts - 1}}
		}
		for _, r := range reps {
			if err := w.Write(row(sb, c, r)); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func row(sb *sbv1.SpiralBench, c sbv1.CellResult, r sbv1.RepeatResult) []string {
	p := c.Parameters
	pct := func(m int32) string {
		if m < 0 {
			return ""
		}
		return strconv.FormatFloat(float64(m)/1000, 'f', 1, 64)
	}
	gbps := func(mbps int64) string { return strconv.FormatFloat(float64(mbps)/1000, 'f', 3, 64) }
	cpuM, cpuT, cpuR, gpuS, gpuM := "", "", "", "", ""
	if r.CPU != nil {
		cpuM, cpuT, cpuR = pct(r.CPU.MasterMilliPercent), pct(r.CPU.TXMilliPercent), pct(r.CPU.RXMilliPercent)
	}
	if r.GPU != nil {
		gpuS, gpuM = pct(r.GPU.SMMilliPercent), pct(r.GPU.MemoryMilliPercent)
	}
	gemmDim, sync := "", ""
	if w := sb.Spec.Workload; w != nil && p.Workload != sbv1.WorkloadNone {
		if p.Workload == sbv1.WorkloadGEMM || p.Workload == sbv1.WorkloadGEMMFP16 {
			gemmDim = strconv.Itoa(int(w.GEMMN))
		}
		sync = strconv.Itoa(int(w.SyncInterval))
	}
	return []string{
		"cpp", Backend(sb.Spec.Transport), p.Workload.DataplaneName(), itoa(int64(p.PayloadBytes)), itoa(int64(p.Batch)),
		itoa(int64(p.Pairs)), gbps(int64(p.TargetRateMbps)), itoa(int64(r.Repeat)),
		strconv.FormatFloat(float64(r.MeasuredMilliseconds)/1000, 'f', 3, 64),
		itoa(r.RXPackets), itoa(r.RXBytes), itoa(r.PacketsPerSecond), gbps(r.TXMbps), gbps(r.RXMbps),
		itoa(r.Drops), r.DropsKind, cpuM, cpuT, cpuR, gpuS, gpuM, gemmDim, sync,
		itoa(int64(c.Index)), strconv.FormatBool(c.Headline), string(r.State), itoa(int64(r.Attempt)),
		itoa(int64(p.Queues.TX)), itoa(int64(p.Queues.RX)), itoa(r.LossPPM),
	}
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
