package fleet

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/environment"
)

// Record is one node's result in one run, as the bucket keeps it for later baselines:
// <prefix>/history/<namespace>/<fleet>/<node>/<run-id>/record.json, signed by the manager
// (SIGNATURE.json beside it).
type Record struct {
	V       int    `json:"v"`
	Node    string `json:"node"`
	Fleet   string `json:"fleet"`
	Bench   string `json:"bench"`
	RunID   string `json:"runID"`
	Time    string `json:"time"` // RFC 3339, UTC
	Metric  string `json:"metric"`
	Verdict string `json:"verdict"`
	// Values are the headline cell's valid repeats, in the metric's unit.
	Values      []int64          `json:"values"`
	Environment sbv1.Environment `json:"environment"`
}

// HistoryPrefix is the folder of one node's records.
func HistoryPrefix(prefix, namespace, fleet, node string) string {
	parts := []string{}
	if p := strings.Trim(prefix, "/"); p != "" {
		parts = append(parts, p)
	}
	return path.Join(append(parts, "history", namespace, fleet, node)...) + "/"
}

// RecordKey is where a record lives.
func RecordKey(prefix, namespace string, r Record) string {
	return HistoryPrefix(prefix, namespace, r.Fleet, r.Node) + r.RunID + "/record.json"
}

// Encode renders a record.
func (r Record) Encode() ([]byte, error) {
	r.V = 1
	return json.Marshal(r)
}

// DecodeRecord reads a record, refusing other versions.
func DecodeRecord(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("history record: %w", err)
	}
	if r.V != 1 {
		return r, fmt.Errorf("history record version %d, want 1", r.V)
	}
	return r, nil
}

// Comparable says whether two runs were measured on the same environment: the keys given
// (a fleet's baseline.environmentKeys), by default environment.HistoryKeys (GPU driver, NIC
// driver and firmware, kernel and data plane image). A driver upgrade starts a new history:
// comparing across it is the upgrade gate's job, not the baseline's.
func Comparable(a, b sbv1.Environment, keys []sbv1.EnvironmentKey) bool {
	return environment.Comparable(&a, &b, environment.KeysOr(keys, environment.HistoryKeys))
}

// Baseline picks the values of the node's most recent `runs` records of the same metric
// measured on an environment comparable with env, leaving out the current run. It returns
// the values and how many runs they came from.
func Baseline(records []Record, metric string, env sbv1.Environment, keys []sbv1.EnvironmentKey, currentRunID string, runs int) ([]int64, int) {
	var usable []Record
	for _, r := range records {
		if r.RunID != currentRunID && r.Metric == metric && len(r.Values) > 0 && Comparable(r.Environment, env, keys) {
			usable = append(usable, r)
		}
	}
	sort.Slice(usable, func(i, j int) bool { return usable[i].Time > usable[j].Time })
	if len(usable) > runs {
		usable = usable[:runs]
	}
	var values []int64
	for _, r := range usable {
		values = append(values, r.Values...)
	}
	return values, len(usable)
}

// RunMeans are the means of the node's most recent `runs` comparable runs of the metric,
// oldest first, leaving out the current run: the series a trend reads.
func RunMeans(records []Record, metric string, env sbv1.Environment, keys []sbv1.EnvironmentKey, currentRunID string, runs int) []float64 {
	var usable []Record
	for _, r := range records {
		if r.RunID != currentRunID && r.Metric == metric && len(r.Values) > 0 && Comparable(r.Environment, env, keys) {
			usable = append(usable, r)
		}
	}
	sort.Slice(usable, func(i, j int) bool { return usable[i].Time < usable[j].Time })
	if len(usable) > runs {
		usable = usable[len(usable)-runs:]
	}
	means := make([]float64, 0, len(usable))
	for _, r := range usable {
		var sum float64
		for _, v := range r.Values {
			sum += float64(v)
		}
		means = append(means, sum/float64(len(r.Values)))
	}
	return means
}

// TimeString formats a time as records keep it.
func TimeString(t time.Time) string { return t.UTC().Format(time.RFC3339) }
