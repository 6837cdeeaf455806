package plan_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// cellBound compiles the left side of the generated CRD's 512-cell rule (the product of the
// list sizes, a preset filling the empty ones) with cel-go, as the kube-apiserver evaluates it.
func cellBound(t *testing.T) cel.Program {
	t.Helper()
	data, err := os.ReadFile("../../config/crd/bases/spiralbench.io_spiralbenches.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	var product string
	for _, r := range crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].XValidations {
		if strings.HasPrefix(r.Message, "the matrix expands to more than 512 cells") {
			product, _ = strings.CutSuffix(r.Rule, " <= 512")
		}
	}
	if product == "" {
		t.Fatal("the CRD has no 512-cell rule ending in <= 512 (run make manifests)")
	}
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(product)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	return prg
}

// The 512-cell rule takes each kind's Sweep from its profile (hack/gen-admission) and repeats
// the presets' list sizes (QueueScaling's queue cells, DropCurve's targets, the forward
// presets'): for every kind and preset admission lets through, with the lists empty and with a
// user's list beside them, the rule counts the cells the planner expands, so a preset list
// changed without the rule fails here.
func TestCellBoundRuleMatchesThePlanner(t *testing.T) {
	prg := cellBound(t)
	presets := []sbv1.Preset{sbv1.PresetSmoke, sbv1.PresetSweep, sbv1.PresetQueueScaling, sbv1.PresetDropCurve,
		sbv1.PresetForwardPacketSize, sbv1.PresetForwardBurst, sbv1.PresetNoDropRate}
	checked := 0
	for _, tr := range benchkind.Transports() {
		for _, p := range presets {
			for _, forward := range []bool{false, true} {
				base := sbv1.SpiralBenchSpec{Transport: tr, Matrix: sbv1.MatrixSpec{Preset: p}}
				if forward {
					base.RawEthernet = &sbv1.RawEthernetSpec{Forward: &sbv1.RawForwardSpec{}}
				}
				if p == sbv1.PresetNoDropRate {
					base.Run.Search = &sbv1.RateSearchSpec{}
				}
				if !sbtesting.PresetAdmitted(&base, p) {
					continue
				}
				for _, userList := range []string{"", "payloadBytes", "targetRatesMbps"} {
					spec := *base.DeepCopy()
					matrix := map[string]any{"preset": string(p)}
					switch userList {
					case "payloadBytes":
						if tr == sbv1.TransportNCCL || tr == sbv1.TransportGPUCopy {
							continue // they sweep sizes of their own: admission refuses payloads
						}
						spec.Matrix.PayloadBytes, matrix[userList] = []int32{64, 1024}, []int64{64, 1024}
					case "targetRatesMbps":
						spec.Matrix.TargetRatesMbps, matrix[userList] = []int32{1000, 2000}, []int64{1000, 2000}
					}
					cells, err := plan.Expand(&spec)
					if err != nil {
						t.Fatalf("%s %s: %v", tr, p, err)
					}
					out, _, err := prg.Eval(map[string]any{"self": map[string]any{"transport": string(tr), "matrix": matrix}})
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%s %s (forward %t, %s set)", tr, p, forward, userList)
					if got, ok := out.Value().(int64); !ok || got != int64(len(cells)) {
						t.Errorf("%s: the 512-cell rule counts %v cells, the planner expands %d: change the preset sizes in hack/gen-admission/rules/cells.go (dimensions), then make generate manifests",
							name, out.Value(), len(cells))
					}
					checked++
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked only %d combinations", checked)
	}
}
