package plan

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// daqiriBackend is one backend's matrix lists as NVIDIA/daqiri's examples/run_spark_bench.sh
// writes them (PAYLOADS_SWEEP, BATCHES_SWEEP, PAIRS_SWEEP and the *_HEADLINE lists), in the
// script's order. It is an independent transcription: the test compares the planner's
// expansion against it cell for cell.
type daqiriBackend struct {
	transport                         sbv1.Transport
	payloads, batches, pairs          []int32
	headPayload, headBatch, headPairs int32
}

var daqiriBackends = map[string]daqiriBackend{
	"dpdk":       {sbv1.TransportRawEthernet, []int32{8000, 4096, 1024, 256, 64}, []int32{10240, 4096, 1024, 256}, []int32{1}, 8000, 10240, 1},
	"rdma":       {sbv1.TransportRoCE, []int32{8000000, 1048576, 65536, 8192, 4096}, []int32{1}, []int32{1}, 8000000, 1, 1},
	"socket-udp": {sbv1.TransportUDP, []int32{8000, 1000}, []int32{1}, []int32{1, 2, 4}, 8000, 1, 4},
	"socket-tcp": {sbv1.TransportTCP, []int32{1048576, 8000, 1000}, []int32{1}, []int32{1, 2, 4}, 8000, 1, 4},
}

// DROP_CURVE_TARGETS=(1 5 10 25 50 75 100 0), in Gb/s.
var daqiriTargetsGbps = []int32{1, 5, 10, 25, 50, 75, 100, 0}

// daqiriCells replays the script's loops for one mode: payload, batch, pairs, then target
// for the drop curves. With a workload the payload sweep shrinks to the headline payload.
func daqiriCells(b daqiriBackend, mode string, workload bool) []sbv1.CellParameters {
	one := func(v int32) []int32 { return []int32{v} }
	payloads, batches, pairs, targets := one(b.headPayload), one(b.headBatch), one(b.headPairs), []int32{0}
	sweepPayloads := b.payloads
	if workload {
		sweepPayloads = one(b.headPayload)
	}
	switch mode {
	case "smoke":
	case "sweep":
		payloads, batches, pairs = sweepPayloads, b.batches, b.pairs
	case "drop-curve":
		targets = daqiriTargetsGbps
	case "drop-curve-matrix":
		payloads, targets = sweepPayloads, daqiriTargetsGbps
	default:
		panic("unknown DAQIRI mode " + mode)
	}
	var out []sbv1.CellParameters
	for _, p := range payloads {
		for _, bt := range batches {
			for _, n := range pairs {
				for _, g := range targets {
					out = append(out, sbv1.CellParameters{PayloadBytes: p, Batch: bt, Pairs: n, Queues: q(1, 1), TargetRateMbps: g * 1000})
				}
			}
		}
	}
	return out
}

// daqiriMQCells replays examples/run_spark_mq_bench.sh: CELLS 1t1r 1t2r 2t1r 2t2r, each with
// PAYLOADS="64 256 1024 4096 8000" inside, at the headline batch.
func daqiriMQCells() []sbv1.CellParameters {
	var out []sbv1.CellParameters
	for _, c := range []sbv1.QueueCell{q(1, 1), q(1, 2), q(2, 1), q(2, 2)} {
		for _, p := range []int32{64, 256, 1024, 4096, 8000} {
			out = append(out, sbv1.CellParameters{PayloadBytes: p, Batch: 10240, Pairs: 1, Queues: c})
		}
	}
	return out
}

func transportParams(cells []Cell) []sbv1.CellParameters {
	out := make([]sbv1.CellParameters, len(cells))
	for i, c := range cells {
		out[i] = c.CellParameters
		out[i].Workload, out[i].WorkloadBatchBytes = "", 0
	}
	return out
}

func sameCells(t *testing.T, what string, got, want []sbv1.CellParameters) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells, DAQIRI runs %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: cell %d = %+v, DAQIRI runs %+v", what, i, got[i], want[i])
		}
	}
}

// Every preset against the script's loops, for every backend, with and without a workload.
func TestPresetsAreDAQIRIsMatricesCellForCell(t *testing.T) {
	for name, b := range daqiriBackends {
		for _, workload := range []bool{false, true} {
			for mode, preset := range map[string]sbv1.Preset{"smoke": sbv1.PresetSmoke, "sweep": sbv1.PresetSweep, "drop-curve": sbv1.PresetDropCurve} {
				w := sbtesting.MakeSpiralBench("x", "ns").Transport(b.transport).Preset(preset)
				if workload {
					w.Workload(sbv1.WorkloadGEMMFP16)
				}
				what := fmt.Sprintf("%s %s workload=%v", name, mode, workload)
				sameCells(t, what, transportParams(expand(t, w)), daqiriCells(b, mode, workload))
			}
		}
	}
	sameCells(t, "run_spark_mq_bench.sh", transportParams(expand(t,
		sbtesting.MakeSpiralBench("x", "ns").Transport(sbv1.TransportRawEthernet).Preset(sbv1.PresetQueueScaling))), daqiriMQCells())
}

// The headline cell is the smoke cell wherever it sits in a preset.
func TestHeadlineIsDAQIRIsSmokeCell(t *testing.T) {
	for name, b := range daqiriBackends {
		cells := expand(t, sbtesting.MakeSpiralBench("x", "ns").Transport(b.transport).Preset(sbv1.PresetSweep))
		h := headlineOf(t, cells).CellParameters
		h.Workload = ""
		if smoke := daqiriCells(b, "smoke", false)[0]; h != smoke {
			t.Errorf("%s headline = %+v, want DAQIRI's smoke cell %+v", name, h, smoke)
		}
	}
}

// docs/api.md's table of DAQIRI modes: each row's command, bench kind and matrix expand to
// exactly the cells the command runs, in its order, and the row's cell count is right.
func TestDocsDAQIRIModeTableMatchesTheExpansion(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start, end := strings.Index(text, "<!-- daqiri-modes:begin -->"), strings.Index(text, "<!-- daqiri-modes:end -->")
	if start < 0 || end < start {
		t.Fatal("docs/api.md lacks the daqiri-modes table markers")
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (\\w+) \\| `([^`]+)` \\| (\\d+) \\|")
	seen := map[string]bool{}
	for _, line := range strings.Split(text[start:end], "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		command, transport, matrix := m[1], sbv1.Transport(m[2]), m[3]
		count, _ := strconv.Atoi(m[4])
		w := sbtesting.MakeSpiralBench("x", "ns").Transport(transport)
		workload := applyDocMatrix(t, w, matrix)
		var want []sbv1.CellParameters
		f := strings.Fields(command)
		switch {
		case strings.HasSuffix(f[len(f)-1], "run_spark_mq_bench.sh"):
			want = daqiriMQCells()
		case len(f) >= 3 && strings.HasSuffix(f[len(f)-3], "run_spark_bench.sh"):
			b, ok := daqiriBackends[f[len(f)-2]]
			if !ok || b.transport != transport {
				t.Fatalf("row %q: backend %q is not DAQIRI's name for %s", command, f[len(f)-2], transport)
			}
			want = daqiriCells(b, f[len(f)-1], workload)
			seen[f[len(f)-2]+" "+f[len(f)-1]] = true
		default:
			t.Fatalf("row %q: not a DAQIRI command", command)
		}
		sameCells(t, command, transportParams(expand(t, w)), want)
		if count != len(want) {
			t.Errorf("row %q says %d cells, the expansion has %d", command, count, len(want))
		}
		seen[command] = true
	}
	for name := range daqiriBackends {
		for _, mode := range []string{"smoke", "sweep", "drop-curve", "drop-curve-matrix"} {
			if !seen[name+" "+mode] {
				t.Errorf("docs/api.md has no row for run_spark_bench.sh %s %s", name, mode)
			}
		}
	}
	if !seen["run_spark_mq_bench.sh"] {
		t.Error("docs/api.md has no row for run_spark_mq_bench.sh")
	}
}

// applyDocMatrix reads a row's matrix cell, "preset: X" then optional "; payloadBytes: [..]"
// and "; workload: K", and reports whether a workload was set.
func applyDocMatrix(t *testing.T, w *sbtesting.SpiralBenchWrapper, matrix string) bool {
	t.Helper()
	workload := false
	for _, part := range strings.Split(matrix, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			t.Fatalf("matrix %q: %q is not key: value", matrix, part)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "preset":
			w.Preset(sbv1.Preset(v))
		case "payloadBytes":
			var list []int32
			for _, s := range strings.Split(strings.Trim(v, "[]"), ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil {
					t.Fatalf("matrix %q: %v", matrix, err)
				}
				list = append(list, int32(n))
			}
			w.Payloads(list...)
		case "workload":
			w.Workload(sbv1.WorkloadKind(v))
			workload = true
		default:
			t.Fatalf("matrix %q: unknown key %q", matrix, k)
		}
	}
	return workload
}
