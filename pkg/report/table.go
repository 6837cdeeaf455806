package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// WriteTable prints a bench's cell results as the seed's tables read: the cell's
// coordinates, RX (and TX) Gb/s as mean ± std, loss, drops and CPU per role.
func WriteTable(w io.Writer, sb *sbv1.SpiralBench) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tPARAMETERS\tSTATE\tRX Gb/s\tTX Gb/s\tLOSS %\tDROPS\tCPU TX/RX %\tGPU SM %\tREPEATS")
	for _, c := range sb.Status.CellResults {
		mark := ""
		if c.Headline {
			mark = "*"
		}
		cpu, gpu := "-", "-"
		if c.CPU != nil {
			cpu = fmt.Sprintf("%s/%s", pct(c.CPU.TXMilliPercent), pct(c.CPU.RXMilliPercent))
		}
		if c.GPU != nil {
			gpu = pct(c.GPU.SMMilliPercent)
		}
		drops := "-"
		if c.Repeats > 0 {
			drops = fmt.Sprintf("%d %s", c.Drops, c.DropsKind)
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\n", c.Index, mark, Parameters(sb.Spec.Transport, c.Parameters),
			c.State, gbps(c.RXMbps), gbps(c.TXMbps), loss(c), strings.TrimSpace(drops), cpu, gpu, c.Repeats, c.Attempts)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range sb.Status.CellResults {
		if c.Message != "" && c.State != sbv1.CellValid {
			fmt.Fprintf(w, "cell %d: %s\n", c.Index, c.Message)
		}
	}
	return nil
}

// Parameters names a cell the way the seed's tables do.
func Parameters(t sbv1.Transport, p sbv1.CellParameters) string {
	s := size(p.PayloadBytes)
	switch t {
	case sbv1.TransportRawEthernet:
		s += fmt.Sprintf(" batch %d (%d,%d)", p.Batch, p.Queues.TX, p.Queues.RX)
	case sbv1.TransportTCP, sbv1.TransportUDP:
		s += fmt.Sprintf(" x %d pairs", p.Pairs)
	}
	if p.TargetRateMbps > 0 {
		s += fmt.Sprintf(" @ %g Gb/s", float64(p.TargetRateMbps)/1000)
	}
	if p.Workload != "" && p.Workload != sbv1.WorkloadNone {
		s += " " + p.Workload.DataplaneName()
		if p.WorkloadBatchBytes > 0 {
			s += "/" + size(p.WorkloadBatchBytes)
		}
	}
	return s
}

func size(b int32) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0 && b != 8192 && b != 4096:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

func gbps(s *sbv1.Statistic) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f ± %.2f", float64(s.Mean)/1000, float64(s.StdDev)/1000)
}

func pct(m int32) string {
	if m < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f", float64(m)/1000)
}

func loss(c sbv1.CellResult) string {
	if c.Repeats == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(c.LossPPM)/10000)
}
