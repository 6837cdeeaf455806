package benchkind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// NCCLTestsFile is an NCCL bench's results in nccl-tests 2.19's own JSON (its -J, schema version
// 3), beside collectives.csv, so nccl-tests' tools read them (docs/benchmarks/nccl.md).
const NCCLTestsFile = "nccl-tests.json"

// ncclTestsSchema is nccl-tests 2.19's JSON_FILE_VERSION (src/util.cu).
const ncclTestsSchema = 3

// NCCLTestsJSON renders every repeat's sweep of an NCCL bench as one nccl-tests document: its
// "results" hold each repeat's sizes in turn (as nccl-tests -N repeats its sweep), each named
// "cell <i> repeat <r>" in experiment_name. nil when no repeat carries a sweep.
//
// It is made from the status, which keeps no per-iteration times (only p50 and p99, which the
// schema's *_per_iter objects cannot be built from), so it has none: as nccl-tests without -I, no
// *_per_iter objects and "per_iter_timing": "false". analyze_perf_json.py then reports the
// overview only; the data plane's --nccl-tests-json file has every rank's per-iteration times.
// Also unknown here and so empty: "args" and "env" (the pods'), "devices" (no per-rank record).
func NCCLTestsJSON(sb *sbv1.SpiralBench) ([]byte, error) {
	o := sb.Spec.NCCL
	if o == nil {
		o = &sbv1.NCCLSpec{}
	}
	var results []orderedObject
	var errs []string
	version, outOfBounds, busbwSum, busbwRows := "", 0, 0.0, 0
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Collective == nil {
				continue
			}
			if version == "" {
				version = r.Collective.NCCLVersion
			}
			if r.State != sbv1.CellValid && r.Message != "" {
				errs = append(errs, fmt.Sprintf("cell %d repeat %d: %s: %s", c.Index, r.Repeat, r.State, r.Message))
			}
			res := ncclTestsResults(o, r.Collective, fmt.Sprintf("cell %d repeat %d", c.Index, r.Repeat))
			for _, s := range r.Collective.Sizes {
				if s.Check == sbv1.NCCLCheckFailed {
					outOfBounds++
				}
				busbwSum += float64(s.BusbwMBps) / 1000
				busbwRows++
			}
			results = append(results, res...)
		}
	}
	if results == nil {
		return nil, nil
	}
	avg := math.NaN() // no row: nccl-tests' 0/0, written "nan"
	if busbwRows > 0 {
		avg = busbwSum / float64(busbwRows)
	}
	step := max(o.StepFactor, 2)
	doc := orderedObject{
		{"version", ncclTestsSchema},
		{"start_time", ncclTestsTime(sb.Status.StartTime)},
		{"args", []string{}}, {"env", []string{}},
		{"nccl_version", ncclVersionCode(version)},
		{"config", orderedObject{
			{"nthreads", 1}, {"ngpus", 1},
			{"minimum_bytes", positive(o.MinBytes, 8)}, {"maximum_bytes", positive(o.MaxBytes, 128*MiB)},
			{"step_factor", step},
			{"warmup_iters", o.WarmupIterations}, {"iterations", max(o.Iterations, 1)},
			{"aggregated_iterations", 1}, {"validation", o.CheckIterations}, {"graph", 0},
			{"blocking_collectives", "false"}, {"per_iter_timing", "false"}, {"per_iter_skip", 0},
			{"parallel_init", "false"}, {"devices", []any{}},
		}},
		{"results", results},
		{"out_of_bounds", orderedObject{{"count", outOfBounds}, {"okay", boolString(outOfBounds == 0)}}},
		{"average_bus_bandwidth", orderedObject{{"bandwidth", avg}, {"okay", "unchecked"}}},
		{"errors", append([]string{}, errs...)},
		{"end_time", ncclTestsTime(sb.Status.CompletionTime)},
	}
	return json.Marshal(doc)
}

// ncclTestsResults are one repeat's rows, a result per size holding both placements.
func ncclTestsResults(o *sbv1.NCCLSpec, col *sbv1.CollectiveResult, name string) []orderedObject {
	op := col.Operation
	redop, root := "none", -1
	if op == sbv1.NCCLAllReduce || op == sbv1.NCCLReduce || op == sbv1.NCCLReduceScatter {
		redop = NCCLReduceOpName(o.ReduceOp)
	}
	if op == sbv1.NCCLBroadcast || op == sbv1.NCCLReduce {
		root = int(o.Root)
	}
	elem := int64(ncclElementBytes[NCCLDataTypeName(o.DataType)])
	var out []orderedObject
	for i := 0; i < len(col.Sizes); {
		bytes := col.Sizes[i].Bytes
		var place [2]any // out of place, in place; null when not run (nccl-tests' null body)
		for ; i < len(col.Sizes) && col.Sizes[i].Bytes == bytes; i++ {
			s := col.Sizes[i]
			var nwrong any // null when not checked, as nccl-tests without -c
			switch s.Check {
			case sbv1.NCCLCheckPassed:
				nwrong = 0.0
			case sbv1.NCCLCheckFailed:
				nwrong = float64(s.WrongElements)
			}
			k := 0
			if s.InPlace {
				k = 1
			}
			place[k] = orderedObject{{"time", float64(s.TimeNanoseconds) / 1000}, {"alg_bw", float64(s.AlgbwMBps) / 1000},
				{"bus_bw", float64(s.BusbwMBps) / 1000}, {"nwrong", nwrong}}
		}
		// count: the elements nccl-tests passes to NCCL; the status keeps bytes only
		count := any(nil)
		if c, ok := ncclCount(op, bytes, elem, col.Ranks); ok {
			count = c
		}
		out = append(out, orderedObject{{"size", bytes}, {"count", count}, {"type", NCCLDataTypeName(o.DataType)},
			{"redop", redop}, {"root", fmt.Sprintf("%6d", root)}, {"out_of_place", place[0]}, {"in_place", place[1]},
			{"actual_iterations", max(o.Iterations, 1)}, {"experiment_name", name}})
	}
	return out
}

// ncclElementBytes are the data plane's element types' sizes.
var ncclElementBytes = map[string]int{"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
	"half": 2, "float": 4, "double": 8, "bfloat16": 2}

// ncclCount is nccl-tests' count (the one passed to NCCL) for a reported size, the larger of one
// rank's send and receive bytes: that holds every rank's slice for all_gather (receive),
// reduce_scatter (send) and alltoall (both), as dataplane/src/transports/nccl/collective.cpp.
// alltoallv's generated traffic gives the per-peer count the same way, short by at most the
// 16-byte rounding of each peer's share (a traffic matrix has none: nccl-tests prints 0 there).
func ncclCount(op sbv1.NCCLOperation, bytes, elem int64, ranks int32) (int64, bool) {
	if elem <= 0 {
		return 0, false
	}
	n := bytes / elem
	if op == sbv1.NCCLAllGather || op == sbv1.NCCLReduceScatter || op == sbv1.NCCLAllToAll || op == sbv1.NCCLAllToAllv {
		if ranks <= 0 {
			return 0, false
		}
		n /= int64(ranks)
	}
	return n, true
}

// ncclVersionCode is nccl-tests' integer form: "2.28.9+cuda13.0" -> 22809; 0 when unknown.
func ncclVersionCode(v string) int {
	var major, minor, patch int
	if n, _ := fmt.Sscanf(v, "%d.%d.%d", &major, &minor, &patch); n < 2 {
		return 0
	}
	return major*10000 + minor*100 + patch
}

// ncclTestsTime is nccl-tests' "%Y-%m-%d %H:%M:%S" (in UTC here), or null when unknown.
func ncclTestsTime(t *metav1.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.DateTime)
}

// boolString is nccl-tests' jsonBool: the strings "true" and "false".
func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func positive(v, d int64) int64 {
	if v <= 0 {
		return d
	}
	return v
}

// orderedObject is a JSON object written in its keys' order, as nccl-tests writes its keys.
type orderedObject []struct {
	k string
	v any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.k)
		val := kv.v
		if f, ok := val.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			val = "nan" // JSON has no NaN; nccl-tests writes the string
		}
		v, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv.k, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
