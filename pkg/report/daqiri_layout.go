package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// DAQIRIProvenanceFile sits beside the DAQIRI-layout runs.csv: which bench it came from and
// how its figures were restated, so the folder is never taken for a DAQIRI run.
const DAQIRIProvenanceFile = "SPIRALBENCH.txt"

// DAQIRILayout renders a run as DAQIRI's workflows lay their results out, keyed by path:
// <timestamp>-<backend>-<mode>/runs.csv (examples/run_spark_bench.sh; its 23 columns) or, for
// a raw queue matrix, <timestamp>-dpdk-mq/runs.csv (examples/run_spark_mq_bench.sh; the shape
// its scripts/plot_mq_payload_sweep.py reads). Figures are DAQIRI's meanings: raw bytes and
// Gb/s count payload + 64 B per packet, and a share nothing measured is benchkind.Unknown. A
// run DAQIRI has no workflow for (another kind, the forward mode, ping-pong latency, a rate
// search) is refused rather than written in a shape that would mislead.
func DAQIRILayout(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	if err := daqiriComparable(sb); err != nil {
		return nil, err
	}
	backend, mode := Backend(sb.Spec.Transport), daqiriMode(sb)
	dir := sb.Status.StartTime.UTC().Format("20060102T150405Z") + "-" + backend + "-" + mode
	var data []byte
	var err error
	if mode == "mq" {
		data, err = benchkind.QueueScalingCSVIn(sb, benchkind.DAQIRIBytes)
	} else {
		data, err = daqiriRunsCSV(sb)
	}
	if err != nil {
		return nil, err
	}
	return map[string][]byte{dir + "/runs.csv": data, dir + "/" + DAQIRIProvenanceFile: daqiriProvenance(sb, backend)}, nil
}

// daqiriComparable refuses what DAQIRI's run_spark_bench.sh and run_spark_mq_bench.sh never write.
func daqiriComparable(sb *sbv1.SpiralBench) error {
	s := sb.Spec
	switch {
	case sb.Status.StartTime == nil:
		return fmt.Errorf("%s has not started: DAQIRI's folder is named after the start time", sb.Name)
	case !slices.Contains([]string{"dpdk", "rdma", "socket-udp", "socket-tcp"}, Backend(s.Transport)):
		return fmt.Errorf("DAQIRI has no %s workflow; the run's own files (sbctl get without --layout) have it", s.Transport)
	case s.RawEthernet != nil && s.RawEthernet.Forward != nil:
		return fmt.Errorf("DAQIRI has no forward mode; forward.csv (sbctl get without --layout) has the figures")
	case s.RoCE != nil && s.RoCE.Mode == sbv1.RoCEModeLatency, s.Socket != nil && s.Socket.Mode == sbv1.SocketModeLatency:
		return fmt.Errorf("DAQIRI's runs.csv has no latency columns; runs.csv of sbctl get has lat_*_ns")
	case s.Run.Search != nil:
		return fmt.Errorf("DAQIRI has no rate search; runs.csv of sbctl get has ndr_mbps and pdr_mbps")
	}
	return nil
}

// daqiriMode is the mode word of DAQIRI's folder name: the preset's, else the matrix's shape.
func daqiriMode(sb *sbv1.SpiralBench) string {
	payloads, targets, queues := map[int32]bool{}, map[int32]bool{}, map[sbv1.QueueCell]bool{}
	for _, c := range sb.Status.CellResults {
		payloads[c.Parameters.PayloadBytes], targets[c.Parameters.TargetRateMbps], queues[c.Parameters.Queues] = true, true, true
	}
	switch {
	case sb.Spec.Matrix.Preset == sbv1.PresetQueueScaling, sb.Spec.Transport == sbv1.TransportRawEthernet && len(queues) > 1:
		return "mq"
	case sb.Spec.Matrix.Preset == sbv1.PresetSmoke:
		return "smoke"
	case sb.Spec.Matrix.Preset == sbv1.PresetDropCurve:
		return "drop-curve"
	case sb.Spec.Matrix.Preset == sbv1.PresetSweep:
		return "sweep"
	case len(targets) > 1 && len(payloads) > 1:
		return "drop-curve-matrix"
	case len(targets) > 1:
		return "drop-curve"
	case len(sb.Status.CellResults) == 1:
		return "smoke"
	}
	return "sweep"
}

// daqiriRunsCSV is runs.csv's first 23 columns (DAQIRI's), a row per measured repeat, with the
// raw backend's bytes restated in DAQIRI's accounting and the columns the row names unknown
// written as benchkind.Unknown: without our `unknown` column a 0 there would read as measured.
func daqiriRunsCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	col := func(name string) int { return slices.Index(CSVColumns, name) }
	raw := sb.Spec.Transport == sbv1.TransportRawEthernet
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(CSVColumns[:DAQIRIColumns]); err != nil {
		return nil, err
	}
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			full := row(sb, c, r)
			for _, name := range strings.Split(full[col("unknown")], ";") {
				if i := col(name); i >= 0 && i < DAQIRIColumns {
					full[i] = benchkind.Unknown
				}
			}
			if raw { // packets and bytes are the receiver's for dpdk, as in runs.csv
				ms, a, payload := r.MeasuredMilliseconds, benchkind.DAQIRIBytes, c.Parameters.PayloadBytes
				rx := a.RXBytes(r, payload)
				full[col("bytes")], full[col("gbps")], full[col("rx_gbps")] = itoa(rx), benchkind.Gbps(rx, ms), benchkind.Gbps(rx, ms)
			}
			if err := w.Write(full[:DAQIRIColumns]); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// daqiriProvenance says where the folder came from and what was restated.
func daqiriProvenance(sb *sbv1.SpiralBench, backend string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Written by SpiralBench (sbctl get --layout daqiri) from bench %s/%s, run %s.\n", sb.Namespace, sb.Name, RunID(sb))
	fmt.Fprintln(&b, "Columns and units are DAQIRI's (docs/api.md, \"The DAQIRI layout\").")
	if backend == "dpdk" {
		fmt.Fprintf(&b, "Raw bytes and Gb/s count payload + %d B per packet, DAQIRI's header_size, though SpiralBench's frames\n"+
			"carry payload + %d B: gbps = packets x (payload + %d) x 8 / seconds / 1e9. The run's own files count the frames.\n",
			benchkind.DAQIRIHeaderBytes, benchkind.RawFrameHeaderBytes, benchkind.DAQIRIHeaderBytes)
	}
	fmt.Fprintf(&b, "A busy share nothing measured is %q (DAQIRI's own scripts write 0 there).\n", benchkind.Unknown)
	return []byte(b.String())
}
