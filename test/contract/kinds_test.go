package contract

import (
	"os"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Every kind of the operator is a kind of the data plane and says what it says: DAQIRI's
// backend name, which counts and extra columns of runs.csv apply, whether repeats share a
// process, and what admission lets it do that the data plane decides (a rate search, several
// links, a size sweep inside one cell); and every kind of the data plane has a profile.
func TestBenchKindsAreTheDataPlanesKinds(t *testing.T) {
	kinds := describeKinds(t)
	profiled := map[string]bool{}
	for _, tr := range benchkind.Transports() {
		p, _ := benchkind.Lookup(tr)
		profiled[p.DataplaneTransport] = true
		k, ok := kinds[p.DataplaneTransport]
		if !ok {
			t.Errorf("%s: the data plane has no kind %q", tr, p.DataplaneTransport)
			continue
		}
		if k.Backend != p.Backend {
			t.Errorf("%s: backend %q, the data plane's %q", tr, p.Backend, k.Backend)
		}
		for _, c := range []struct {
			what     string
			go_, cpp bool
		}{
			{"CountsReceiver / daqiri_counts_receiver", p.CountsReceiver, k.DAQIRICountsReceiver},
			{"Sequenced / sequenced", p.Sequenced, k.Sequenced},
			{"SocketRetrans / socket_retrans", p.SocketRetrans, k.SocketRetrans},
			{"Admission.RateSearch / rate_search", p.Admission.RateSearch, k.RateSearch},
			{"Admission.MultiLink / multi_link", p.Admission.MultiLink, k.MultiLink},
			{"Admission.SweepInCell / run_mode ranks", p.Admission.SweepInCell, k.RunMode == "ranks"},
		} {
			if c.go_ != c.cpp {
				t.Errorf("%s: %s: operator %t, data plane %t", tr, c.what, c.go_, c.cpp)
			}
		}
		if p.RepeatsPerAttempt > 1 && !k.RepeatsInOneProcess {
			t.Errorf("%s: RepeatsPerAttempt %d, but the data plane runs one repeat per process", tr, p.RepeatsPerAttempt)
		}
	}
	for name := range kinds {
		if !profiled[name] {
			t.Errorf("the data plane's kind %q has no benchkind profile", name)
		}
	}
}

// The API's reference names every drops kind the data plane reports (status' dropsKind), within
// its 64 characters.
func TestDropsKindsAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../api/v1alpha1/status_types.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range describeKinds(t) {
		if k.DropsKind == "none" {
			continue
		}
		if len(k.DropsKind) > 64 {
			t.Errorf("%s: drops_kind %q is longer than status' 64 characters", k.Name, k.DropsKind)
		}
		if !strings.Contains(string(src), k.DropsKind) {
			t.Errorf("%s: drops_kind %q is not among those status' dropsKind documents (api/v1alpha1/status_types.go)", k.Name, k.DropsKind)
		}
	}
}

// NCCL's operation, data type and reduction: every value the API admits renders as a spelling
// the data plane accepts, and every spelling the data plane accepts is one the API can ask for.
func TestNCCLSpellingsAreTheDataPlanes(t *testing.T) {
	v := describeKinds(t)["nccl"].Vocabulary
	c := crd(t)
	for _, tc := range []struct {
		key    string
		enum   []string
		render func(string) string
	}{
		{"op", enumOf(t, c, "nccl", "operation"), func(s string) string { return sbv1.NCCLOperation(s).DataplaneName() }},
		{"data_type", enumOf(t, c, "nccl", "dataType"), func(s string) string { return benchkind.NCCLDataTypeName(sbv1.NCCLDataType(s)) }},
		{"reduce_op", enumOf(t, c, "nccl", "reduceOp"), func(s string) string { return benchkind.NCCLReduceOpName(sbv1.NCCLReduceOp(s)) }},
	} {
		var rendered []string
		for _, e := range tc.enum {
			rendered = append(rendered, tc.render(e))
		}
		if got, want := sorted(rendered), sorted(v[tc.key]); got != want {
			t.Errorf("nccl %s: the API's values render as %s; the data plane accepts %s", tc.key, got, want)
		}
	}
}
