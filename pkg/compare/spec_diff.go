package compare

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/environment"
)

// SpecDiff is one field of the two specs that changes what was measured.
type SpecDiff struct {
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// notMeasured are spec fields that do not change a measurement: how it is judged, stored,
// kept, paused or where it runs (the node is in the environment differences).
var notMeasured = []string{"acceptance", "results", "ttlSecondsAfterFinished", "suspend",
	"topology.placement", "topology.server.placement", "topology.client.placement"}

// specDiff lists every leaf field of the specs that differs (a missing field reads "unset"),
// sorted by path, except those of notMeasured.
func specDiff(a, b sbv1.SpiralBenchSpec) []SpecDiff {
	fa, fb := flatten(a), flatten(b)
	paths := map[string]bool{}
	for p := range fa {
		paths[p] = true
	}
	for p := range fb {
		paths[p] = true
	}
	var out []SpecDiff
	for p := range paths {
		if measuredField(p) && fa[p] != fb[p] {
			out = append(out, SpecDiff{Field: p, A: orUnset(fa[p]), B: orUnset(fb[p])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func measuredField(path string) bool {
	for _, n := range notMeasured {
		if path == n || strings.HasPrefix(path, n+".") {
			return false
		}
	}
	return true
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// flatten turns the spec's JSON into path -> value; lists are leaves (a list of payloads is one
// choice of the user's).
func flatten(spec sbv1.SpiralBenchSpec) map[string]string {
	data, _ := json.Marshal(spec)
	var tree map[string]any
	_ = json.Unmarshal(data, &tree)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, child := range m {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, child)
			}
			return
		}
		text, _ := json.Marshal(v)
		out[prefix] = strings.Trim(string(text), `"`)
	}
	walk("", tree)
	return out
}

// envCompare splits the environment keys into those both runs captured and differ, and those
// only one run captured (an older data plane captured fewer keys: not a difference).
func envCompare(a, b *sbv1.SpiralBench) (diffs []EnvDiff, notCaptured []string) {
	ea, eb := a.Status.Environment, b.Status.Environment
	if ea == nil || eb == nil {
		if (ea == nil) != (eb == nil) {
			notCaptured = append(notCaptured, fmt.Sprintf("the whole environment (captured in %s only)", map[bool]string{true: "B", false: "A"}[ea == nil]))
		}
		return nil, notCaptured
	}
	if ea.Node != eb.Node && ea.Node != "" && eb.Node != "" {
		diffs = append(diffs, EnvDiff{Field: "node", A: ea.Node, B: eb.Node})
	}
	for _, d := range environment.Diff(ea, eb, environment.Keys()) {
		switch {
		case d.A == "":
			notCaptured = append(notCaptured, fmt.Sprintf("%s (not captured in A)", d.Key))
		case d.B == "":
			notCaptured = append(notCaptured, fmt.Sprintf("%s (not captured in B)", d.Key))
		default:
			diffs = append(diffs, EnvDiff{Field: string(d.Key), A: d.A, B: d.B})
		}
	}
	return diffs, notCaptured
}
