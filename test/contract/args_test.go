package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// applyDefaults fills an object's unset fields with the schema's defaults, as the kube-apiserver
// does on admission (structural defaulting: objects and list items, depth first).
func applyDefaults(v any, s *apiextensionsv1.JSONSchemaProps) {
	switch v := v.(type) {
	case map[string]any:
		for name, prop := range s.Properties {
			if _, ok := v[name]; !ok && prop.Default != nil {
				var d any
				if err := json.Unmarshal(prop.Default.Raw, &d); err == nil {
					v[name] = d
				}
			}
			if child, ok := v[name]; ok {
				applyDefaults(child, &prop)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for _, item := range v {
				applyDefaults(item, s.Items.Schema)
			}
		}
	}
}

// samples reads config/samples/*.yaml with the CRD's defaults applied.
func samples(t *testing.T) map[string]*sbv1.SpiralBench {
	t.Helper()
	schema := crd(t).Spec.Versions[0].Schema.OpenAPIV3Schema
	files, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sbv1.SpiralBench{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			t.Fatal(err)
		}
		if obj["kind"] != "SpiralBench" {
			continue
		}
		applyDefaults(obj, schema)
		var sb sbv1.SpiralBench
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &sb); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".yaml")] = &sb
	}
	if len(out) < 15 {
		t.Fatalf("read only %d samples", len(out))
	}
	return out
}

// Every argument list the operator renders parses with the data plane's own command line and
// cell parser (spiral-dataplane --check-args): every sample, under each preset admission lets
// it use, every cell (up to 64 a plan) and every rank, repeats as the controller groups them.
func TestEveryRenderedArgumentListParses(t *testing.T) {
	binary := dataplaneBinary(t)
	cuda := describe(t).CUDA
	needCUDA := 0
	presets := []sbv1.Preset{sbv1.PresetSmoke, sbv1.PresetSweep, sbv1.PresetQueueScaling, sbv1.PresetDropCurve,
		sbv1.PresetForwardPacketSize, sbv1.PresetForwardBurst, sbv1.PresetNoDropRate}
	kinds := map[sbv1.Transport]bool{}
	lists := 0
	for name, sample := range samples(t) {
		for _, p := range presets {
			if !sbtesting.PresetAdmitted(&sample.Spec, p) {
				continue
			}
			sb := sample.DeepCopy()
			sb.Spec.Matrix.Preset = p
			cells, err := plan.Expand(&sb.Spec)
			if err != nil {
				t.Fatalf("%s %s: %v", name, p, err)
			}
			kind, _ := benchkind.For(&sb.Spec)
			repeats := min(max(sb.Spec.Run.Repeats, 1), max(kind.RepeatsPerAttempt, 1))
			for _, c := range cells[:min(len(cells), 64)] {
				in, err := cellpod.NewInput(sb, c, 0, repeats, 0, []string{"node-a", "node-b"})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range in.Ranks {
					rendezvous := ""
					if r.Index > 0 {
						rendezvous = "10.0.0.1"
					}
					args := cellpod.Args(in, r, rendezvous)
					err := checkArgs(t, binary, args)
					if err != nil && !cuda && strings.Contains(err.Error(), "built without CUDA") {
						needCUDA++ // a GPU workload or GPU forward work: the CUDA build (make dataplane-cuda) checks it
						continue
					}
					if err != nil {
						t.Errorf("%s, preset %s, cell %d, %s: spiral-dataplane refuses the rendered flags: %v\n  args: %s",
							name, p, c.Index, r.Name, err, strings.Join(args, " "))
					}
					lists++
				}
			}
			kinds[sb.Spec.Transport] = true
		}
	}
	for _, tr := range benchkind.Transports() {
		if !kinds[tr] {
			t.Errorf("no sample renders %s: add one to config/samples", tr)
		}
	}
	t.Logf("%d argument lists parsed; %d need the CUDA build, which this binary is not", lists-needCUDA, needCUDA)
}
