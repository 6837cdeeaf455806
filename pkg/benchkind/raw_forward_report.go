package benchkind

import (
	"bytes"
	"encoding/csv"
	"strconv"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// ForwardFile is the name of the forward mode's CSV written beside runs.csv.
const ForwardFile = "forward.csv"

// ForwardColumns are l2fwd-nv's figures per repeat: offered (the sender's frames over the
// window) and forwarded (what came back to the receiver) Gb/s and Mpps in L2 frame bytes, the
// loss between them, and the GPU's busy share; then the cell's coordinates.
var ForwardColumns = []string{
	"cell", "work", "memory", "payload", "frame_bytes", "batch", "pipelines", "rep",
	"offered_gbps", "forwarded_gbps", "offered_mpps", "forwarded_mpps", "lost", "loss_pct",
	"gpu_sm_pct", "state",
}

// forwardFrameOverhead is the Ethernet, IPv4 and UDP headers around a raw payload.
const forwardFrameOverhead = RawFrameHeaderBytes

// ForwardCSV has one row per measured repeat of every forward cell; a cell that failed before
// it measured one has no row (failures.csv names it). Nil for a bench not in the forward mode.
func ForwardCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	if sb.Spec.RawEthernet == nil || sb.Spec.RawEthernet.Forward == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(ForwardColumns); err != nil {
		return nil, err
	}
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, c := range sb.Status.CellResults {
		p := c.Parameters
		for _, r := range c.RepeatResults {
			og, fg, om, fm, lossPct := "0.000", "0.000", "0.000", "0.000", "0.000"
			if ms := float64(r.MeasuredMilliseconds); ms > 0 {
				og, fg = f3(float64(r.TXBytes)*8/1e6/ms), f3(float64(r.RXBytes)*8/1e6/ms)
				om, fm = f3(float64(r.TXPackets)/1e3/ms), f3(float64(r.RXPackets)/1e3/ms)
			}
			lost := r.TXPackets - r.RXPackets
			if lost < 0 {
				lost = 0
			}
			if r.TXPackets > 0 {
				lossPct = f3(float64(lost) * 100 / float64(r.TXPackets))
			}
			gpu := "-1.0"
			if r.GPU != nil {
				gpu = strconv.FormatFloat(float64(r.GPU.SMMilliPercent)/1000, 'f', 1, 64)
			}
			row := []string{
				itoa64(int64(c.Index)), string(p.ForwardWork), string(p.Memory), itoa64(int64(p.PayloadBytes)),
				itoa64(int64(p.PayloadBytes) + forwardFrameOverhead), itoa64(int64(p.Batch)), itoa64(int64(p.Queues.TX)),
				itoa64(int64(r.Repeat) + 1), og, fg, om, fm, itoa64(lost), lossPct, gpu, string(r.State),
			}
			if err := w.Write(row); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
