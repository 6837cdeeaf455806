package fleet

import (
	_ "embed"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

//go:embed data/suites.yaml
var builtinSuitesYAML []byte

// builtinSuites are the built-in suites, parsed once; a parse error is a build defect that
// TestBuiltinSuitesParse catches.
var builtinSuites = func() map[sbv1.SuiteName][]sbv1.SuiteStep {
	out := map[sbv1.SuiteName][]sbv1.SuiteStep{}
	_ = yaml.UnmarshalStrict(builtinSuitesYAML, &out)
	return out
}()

// BuiltinSuite returns a copy of a built-in suite's steps.
func BuiltinSuite(name sbv1.SuiteName) []sbv1.SuiteStep {
	var out []sbv1.SuiteStep
	for _, s := range builtinSuites[name] {
		out = append(out, *s.DeepCopy())
	}
	return out
}

// Step is one resolved step of a fleet's suite, in run order.
type Step struct {
	// Name of the step; "" for the one step of a fleet with spec.template (its benches keep
	// the names they had before suites existed).
	Name     string
	Template *sbv1.FleetBenchTemplate
	Check    *sbv1.ExternalCheck
	// Pair: a CrossNode bench with the round partner.
	Pair bool
	// AllGPUs: topology.server.gpus is the node's allocatable nvidia.com/gpu.
	AllGPUs bool
	// Deadline from the step's creation; 0 for none.
	Deadline time.Duration
	// Stop: a step that does not pass skips the node's remaining steps.
	Stop bool
}

// Steps resolves a fleet's suite: spec.template is one step (pairing decides its placement);
// spec.suite is its built-in suite with the fleet's steps replacing those of the same name
// and appended after it, or the fleet's steps alone.
func Steps(spec *sbv1.SpiralBenchFleetSpec) []Step {
	if spec.Suite == nil {
		if spec.Template == nil {
			return nil
		}
		return []Step{{Template: spec.Template, Pair: spec.Pairing == sbv1.PairingRing, Stop: true}}
	}
	steps := BuiltinSuite(spec.Suite.Builtin)
	for _, own := range spec.Suite.Steps {
		replaced := false
		for i := range steps {
			if steps[i].Name == own.Name {
				steps[i], replaced = own, true
			}
		}
		if !replaced {
			steps = append(steps, own)
		}
	}
	out := make([]Step, 0, len(steps))
	for i := range steps {
		s := &steps[i]
		deadline := s.DeadlineSeconds
		if deadline == 0 {
			deadline = 1800
		}
		out = append(out, Step{Name: s.Name, Template: s.Template, Check: s.Check, Pair: s.Placement == sbv1.StepOnPair,
			AllGPUs: ptr.Deref(s.UseAllGPUs, false), Deadline: time.Duration(deadline) * time.Second, Stop: s.OnFailure != sbv1.StepContinue})
	}
	return out
}

// StepIndex is the position of a step by name, or -1.
func StepIndex(steps []Step, name string) int {
	for i := range steps {
		if steps[i].Name == name {
			return i
		}
	}
	return -1
}
