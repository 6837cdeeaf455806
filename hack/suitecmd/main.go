// Command suitecmd prints the data plane command lines a built-in suite's single-node steps
// run in their cell pods, as the operator builds them (pkg/fleet steps, plan.Expand,
// cellpod.Args), one line per attempt and rank: "STEP<TAB>CELL.FIRST-REPEAT<TAB>RANK<TAB>ARGS...". It lets a
// GPU machine without Kubernetes (hack/gpu/suite-run.sh) run and time exactly what a fleet's
// pods would run. A rank after the first meets rank 0 at 127.0.0.1 (in a fleet: rank 0's pod
// address). External checks (a site's image) are listed as skipped.
//
//	go run ./hack/suitecmd -suite Quick -gpus 1
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

func main() {
	suite := flag.String("suite", "Quick", "built-in suite: Quick, Standard or Extended")
	gpus := flag.Int("gpus", 1, "the node's GPUs (steps that use all GPUs get this many)")
	crd := flag.String("crd", "config/crd/bases/spiralbench.io_spiralbenches.yaml", "the SpiralBench CRD, whose defaults the apiserver gives a created bench")
	flag.Parse()
	var err error
	if schema, err = loadSchema(*crd); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", *crd, err)
		os.Exit(2)
	}
	steps := fleet.Steps(&sbv1.SpiralBenchFleetSpec{Suite: &sbv1.SuiteSpec{Builtin: sbv1.SuiteName(*suite)}})
	if len(steps) == 0 {
		fmt.Fprintf(os.Stderr, "no built-in suite %q\n", *suite)
		os.Exit(2)
	}
	for _, step := range steps {
		if err := printStep(step, int32(*gpus)); err != nil {
			fmt.Fprintf(os.Stderr, "step %s: %v\n", step.Name, err)
			os.Exit(1)
		}
	}
}

// printStep stamps the step's bench out for one node as the fleet does (controllers,
// createBench: Loopback, all GPUs when the step says so) and prints each cell's command.
func printStep(step fleet.Step, gpus int32) error {
	if step.Template == nil {
		fmt.Printf("# %s: skipped: an external check (a site image), not the data plane\n", step.Name)
		return nil
	}
	sb := &sbv1.SpiralBench{Spec: *step.Template.Spec.DeepCopy()}
	sb.Name, sb.Namespace = "suite-"+step.Name, "default"
	if step.AllGPUs {
		sb.Spec.Topology.Server.GPUs = gpus
	}
	sb.Spec.Topology.Mode = sbv1.TopologyLoopback
	sb.Spec.Topology.Placement = &sbv1.Placement{NodeName: "this-node"}
	if err := applyDefaults(sb); err != nil {
		return err
	}
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		return err
	}
	repeats := max(sb.Spec.Run.Repeats, 1)
	for _, cell := range cells {
		// The attempts of the cell as the bench controller starts them.
		for first, n := int32(0), int32(0); first < repeats; first += n {
			n = benchkind.RepeatsFrom(&sb.Spec, first)
			in, err := cellpod.NewInput(sb, cell, first, n, 0, []string{"this-node"})
			if err != nil {
				return err
			}
			for i, rank := range in.Ranks {
				rendezvous := ""
				if i > 0 {
					rendezvous = "127.0.0.1"
				}
				fmt.Printf("%s\t%d.%d\t%d\t%s\n", step.Name, cell.Index, first, i, strings.Join(cellpod.Args(in, rank, rendezvous), " "))
			}
		}
	}
	return nil
}

// schema is the CRD's schema: its defaults are what the apiserver fills into a bench the fleet
// creates (run.seconds, for one), so the commands match the pods'.
var schema *apiextensionsv1.JSONSchemaProps

func loadSchema(file string) (*apiextensionsv1.JSONSchemaProps, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == sbv1.GroupVersion.Version && v.Schema != nil {
			return v.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, fmt.Errorf("no schema for version %s", sbv1.GroupVersion.Version)
}

// applyDefaults defaults the bench as the apiserver does on create: a property the object
// lacks gets its schema's default, into objects and array items (structural defaulting, without
// the apiserver's pruning, which a bench built from the Go types does not need).
func applyDefaults(sb *sbv1.SpiralBench) error {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sb)
	if err != nil {
		return err
	}
	if err := defaultInto(obj, schema); err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj, sb)
}

func defaultInto(x any, s *apiextensionsv1.JSONSchemaProps) error {
	switch v := x.(type) {
	case map[string]any:
		for name, prop := range s.Properties {
			if _, ok := v[name]; !ok && prop.Default != nil {
				var d any
				if err := json.Unmarshal(prop.Default.Raw, &d); err != nil {
					return err
				}
				v[name] = d
			}
			if child, ok := v[name]; ok {
				if err := defaultInto(child, &prop); err != nil {
					return err
				}
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for _, item := range v {
				if err := defaultInto(item, s.Items.Schema); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
