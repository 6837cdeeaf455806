package benchkind

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// QueueScalingFile is the name of the multi-queue CSV written beside runs.csv.
const QueueScalingFile = "queue-scaling.csv"

// QueueScalingColumns are the columns of DAQIRI's examples/run_spark_mq_bench.sh runs.csv
// that its scripts/plot_mq_payload_sweep.py reads (cell, payload, gbps) and their neighbours,
// in its order; DAQIRI's per-core cpuN columns name its Spark's cores, so the roles' busy
// percentages stand in for them, then SpiralBench's own (batch, state).
var QueueScalingColumns = []string{
	"cell", "tx_cores", "rx_cores", "payload", "rep", "gbps", "pps", "drops",
	"cpu_master_pct", "cpu_tx_pct", "cpu_rx_pct", "batch", "state",
}

// QueueCellName is DAQIRI's name of a (TX,RX) queue cell: 1t1r, 1t2r, 2t1r, 2t2r.
func QueueCellName(q sbv1.QueueCell) string { return fmt.Sprintf("%dt%dr", q.TX, q.RX) }

// QueueScalingCSV has one row per measured repeat, in DAQIRI's multi-queue shape: gbps is the
// summed receive rate (the receiver's bytes over the window, every RX queue), pps the
// receiver's packets per second. A cell that failed before it measured a repeat has no row, as
// in DAQIRI's (a zero would plot as a measured point); failures.csv names it. A busy share that
// nothing measured (a role without a pinned core) is Unknown, not 0.
func QueueScalingCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	return QueueScalingCSVIn(sb, FrameBytes)
}

// QueueScalingCSVIn is QueueScalingCSV with gbps in the given accounting: DAQIRIBytes for the
// runs.csv of `sbctl get --layout daqiri`, so its figures read as DAQIRI's do.
func QueueScalingCSVIn(sb *sbv1.SpiralBench, a Accounting) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(QueueScalingColumns); err != nil {
		return nil, err
	}
	pct := func(m int32) string {
		if m < 0 {
			return Unknown
		}
		return strconv.FormatFloat(float64(m)/1000, 'f', 1, 64)
	}
	for _, c := range sb.Status.CellResults {
		p := c.Parameters
		for _, r := range c.RepeatResults {
			pps := "0"
			if ms := r.MeasuredMilliseconds; ms > 0 {
				pps = strconv.FormatFloat(float64(r.RXPackets)*1000/float64(ms), 'f', 0, 64)
			}
			cpuM, cpuT, cpuR := Unknown, Unknown, Unknown
			if r.CPU != nil {
				cpuM, cpuT, cpuR = pct(r.CPU.MasterMilliPercent), pct(r.CPU.TXMilliPercent), pct(r.CPU.RXMilliPercent)
			}
			row := []string{
				QueueCellName(p.Queues), itoa64(int64(p.Queues.TX)), itoa64(int64(p.Queues.RX)), itoa64(int64(p.PayloadBytes)),
				itoa64(int64(r.Repeat) + 1), Gbps(a.RXBytes(r, p.PayloadBytes), r.MeasuredMilliseconds), pps, itoa64(r.Drops),
				cpuM, cpuT, cpuR, itoa64(int64(p.Batch)), string(r.State),
			}
			if err := w.Write(row); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
