package newkind

import (
	"strings"
	"testing"

	"github.com/google/cel-go/cel"

	"github.com/spiralbench/spiralbench/hack/gen-admission/rules"
)

// probeKinds are the registered kinds as hack/gen-admission orders them, the test-only Probe
// after spec.transport's enum (a real kind is added to the enum, which the generator checks).
func probeKinds(t *testing.T) rules.Kinds {
	t.Helper()
	api, err := rules.ReadAPI("../../api/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := rules.LoadKinds(append(api.Transports, string(transportProbe)))
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// refusals runs the spec rules hack/gen-admission writes for ks with cel-go, as the apiserver
// does, on a spec and returns the messages of those it fails.
func refusals(t *testing.T, ks rules.Kinds, spec map[string]any) []string {
	t.Helper()
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range append(rules.Spec(ks), rules.CellBound(ks)) {
		ast, iss := env.Compile(r.Rule)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", r.Rule, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := prg.Eval(map[string]any{"self": spec})
		if err != nil {
			t.Fatalf("%s on %v: %v", r.Rule, spec, err)
		}
		if v.Value() != true {
			out = append(out, r.Message)
		}
	}
	return out
}

// probeSpec is a Probe spec with the CRD's defaults spelled out, changed by edit.
func probeSpec(edit func(spec, topology, matrix, run map[string]any)) map[string]any {
	topology := map[string]any{"links": 1, "mode": "Loopback", "mtu": 9000, "server": map[string]any{}, "client": map[string]any{}}
	matrix, run := map[string]any{"preset": "Smoke"}, map[string]any{}
	spec := map[string]any{"transport": string(transportProbe), "topology": topology, "matrix": matrix, "run": run}
	if edit != nil {
		edit(spec, topology, matrix, run)
	}
	return spec
}

// The CRD's rules on kinds come from the kinds' profiles: a kind that exists only in this test
// gets them from its Admission (the zero value: no options of its own, one link, no pairs, no
// rate search), and changing its profile changes what admission lets it do.
func TestATestOnlyKindsAdmissionComesFromItsProfile(t *testing.T) {
	ks := probeKinds(t)
	if got := refusals(t, ks, probeSpec(nil)); len(got) != 0 {
		t.Fatalf("a plain Probe spec is refused: %q", got)
	}
	twoLinks := probeSpec(func(_, topology, _, _ map[string]any) { topology["links"] = 2 })
	search := probeSpec(func(_, _, matrix, run map[string]any) {
		matrix["preset"], run["search"] = "NoDropRate", map[string]any{}
	})
	for _, c := range []struct {
		spec map[string]any
		want string
	}{
		{probeSpec(func(spec, _, _, _ map[string]any) { spec["socket"] = map[string]any{} }), "spec.socket applies to transports TCP and UDP only"},
		{probeSpec(func(_, _, matrix, _ map[string]any) { matrix["pairs"] = []any{2} }), "matrix.pairs (socket pairs) applies to TCP and UDP only"},
		{probeSpec(func(_, _, matrix, _ map[string]any) { matrix["preset"] = "QueueScaling" }), "matrix.preset QueueScaling sweeps DPDK queue cells"},
		{twoLinks, "topology.links above 1 applies to TCP and UDP"},
		{search, "run.search (NDR/PDR search) needs a paced transport"},
	} {
		if got := refusals(t, ks, c.spec); !hasPrefix(got, c.want) {
			t.Errorf("%v: want a refusal %q, got %q", c.spec, c.want, got)
		}
	}

	// The same kind with several links and a rate search in its profile admits both.
	for i := range ks {
		if ks[i].Transport == transportProbe {
			ks[i].Admission.MultiLink, ks[i].Admission.RateSearch = true, true
		}
	}
	for _, spec := range []map[string]any{twoLinks, search} {
		if got := refusals(t, ks, spec); len(got) != 0 {
			t.Errorf("Probe with MultiLink and RateSearch: %v refused: %q", spec, got)
		}
	}
}

func hasPrefix(messages []string, prefix string) bool {
	for _, m := range messages {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}
