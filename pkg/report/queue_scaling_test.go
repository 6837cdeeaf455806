package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// queueScalingBench is a finished QueueScaling bench: every planned cell with three repeats,
// each receiving 1000 packets of its payload per millisecond times its RX queue count.
func queueScalingBench(t *testing.T) *sbv1.SpiralBench {
	t.Helper()
	sb := sbtesting.MakeSpiralBench("mq", "ns").Transport(sbv1.TransportRawEthernet).Preset(sbv1.PresetQueueScaling).Obj()
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		res := sbv1.CellResult{Index: c.Index, Headline: c.Headline, Parameters: c.CellParameters, State: sbv1.CellValid}
		for rep := int32(0); rep < 3; rep++ {
			pkts := int64(2000*c.Queues.RX) * 1000
			res.RepeatResults = append(res.RepeatResults, sbv1.RepeatResult{Repeat: rep, State: sbv1.CellValid,
				MeasuredMilliseconds: 2000, RXPackets: pkts, RXBytes: pkts * int64(c.PayloadBytes), TXPackets: pkts,
				TXBytes: pkts * int64(c.PayloadBytes), DropsKind: "dpdk-imissed+ierrors+nombuf"})
		}
		sb.Status.CellResults = append(sb.Status.CellResults, res)
	}
	return sb
}

type point struct {
	payload int
	gbps    float64
}

// loadLikeDAQIRI reads the CSV the way DAQIRI's scripts/plot_mq_payload_sweep.py does: rows
// as dictionaries by column name, the cell name stripped, payload as an integer, gbps as a
// float averaged over the repeats, each cell's points sorted by payload.
func loadLikeDAQIRI(t *testing.T, data []byte) map[string][]point {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]map[int][]float64{}
	for _, r := range rows[1:] {
		row := map[string]string{}
		for i, name := range rows[0] {
			row[name] = r[i]
		}
		cell := strings.TrimSpace(row["cell"])
		payload, err := strconv.Atoi(row["payload"])
		if err != nil {
			t.Fatalf("payload %q: %v", row["payload"], err)
		}
		gbps, err := strconv.ParseFloat(row["gbps"], 64)
		if err != nil {
			t.Fatalf("gbps %q: %v", row["gbps"], err)
		}
		if acc[cell] == nil {
			acc[cell] = map[int][]float64{}
		}
		acc[cell][payload] = append(acc[cell][payload], gbps)
	}
	series := map[string][]point{}
	for cell, by := range acc {
		for p, vals := range by {
			sum := 0.0
			for _, v := range vals {
				sum += v
			}
			series[cell] = append(series[cell], point{p, sum / float64(len(vals))})
		}
		sort.Slice(series[cell], func(i, j int) bool { return series[cell][i].payload < series[cell][j].payload })
	}
	return series
}

func TestQueueScalingCSVReadsLikeDAQIRIsPlotScript(t *testing.T) {
	sb := queueScalingBench(t)
	files, err := Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	data := files[benchkind.QueueScalingFile]
	if data == nil {
		t.Fatalf("a QueueScaling bench writes %s beside runs.csv", benchkind.QueueScalingFile)
	}
	header := strings.SplitN(string(data), "\n", 2)[0]
	if !strings.HasPrefix(header, "cell,tx_cores,rx_cores,payload,rep,gbps,pps,drops,") {
		t.Errorf("header %q is not DAQIRI's multi-queue shape", header)
	}
	series := loadLikeDAQIRI(t, data)
	// The plot script's CELL_ORDER: every cell, each with every payload, nothing else.
	if len(series) != 4 {
		t.Errorf("cells %v, want exactly 1t1r 1t2r 2t1r 2t2r", series)
	}
	for _, cell := range []string{"1t1r", "1t2r", "2t1r", "2t2r"} {
		pts := series[cell]
		if len(pts) != 5 {
			t.Fatalf("cell %s has %d payloads, want 5: %v", cell, len(pts), pts)
		}
		rx := float64(cell[2] - '0')
		for i, want := range []int{64, 256, 1024, 4096, 8000} {
			// gbps is the summed receive rate: 1000 packets/ms per RX queue x payload.
			wantGbps := math.Round(1000*rx*float64(want)*8/1e6*1000) / 1000
			if pts[i].payload != want || math.Abs(pts[i].gbps-wantGbps) > 1e-9 {
				t.Errorf("cell %s point %d = %+v, want %d B at %.3f Gb/s", cell, i, pts[i], want, wantGbps)
			}
		}
	}
}

func TestQueueScalingCSVOnlyForQueueScaling(t *testing.T) {
	if _, ok := mustFiles(t, finishedBench())[benchkind.QueueScalingFile]; ok {
		t.Errorf("a TCP Smoke bench must not write %s", benchkind.QueueScalingFile)
	}
}

func mustFiles(t *testing.T, sb *sbv1.SpiralBench) map[string][]byte {
	t.Helper()
	f, err := Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A failed queue cell has no row: DAQIRI's plot script would average its zero in as a point.
func TestQueueScalingCSVLeavesFailedCellsOut(t *testing.T) {
	sb := queueScalingBench(t)
	failed := &sb.Status.CellResults[3]
	failed.State, failed.RepeatResults, failed.Message = sbv1.CellFailed, nil, "failed after 1 attempt(s): loopback: port down"
	series := loadLikeDAQIRI(t, mustFiles(t, sb)[benchkind.QueueScalingFile])
	name := benchkind.QueueCellName(failed.Parameters.Queues)
	for _, pt := range series[name] {
		if pt.payload == int(failed.Parameters.PayloadBytes) {
			t.Errorf("cell %s at %d B was plotted at %.3f Gb/s though it failed", name, pt.payload, pt.gbps)
		}
	}
	if !strings.Contains(string(mustFiles(t, sb)[FailuresFile]), "port down") {
		t.Error("failures.csv names the failed cell")
	}
}
