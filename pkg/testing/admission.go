package testing

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// PresetAdmitted says whether admission lets a spec use a preset: the kind's Admission in
// pkg/benchkind, which hack/gen-admission writes the CRD's rules on kinds and presets from
// (test/integration checks those rules themselves). Tests that walk every kind and preset
// (the cell bound against the planner, rendered flags against the data plane) skip the rest.
func PresetAdmitted(spec *sbv1.SpiralBenchSpec, p sbv1.Preset) bool {
	kind, err := benchkind.For(spec)
	if err != nil {
		return false
	}
	forward := spec.RawEthernet != nil && spec.RawEthernet.Forward != nil
	return kind.AdmitsPreset(p, forward, spec.Run.Search != nil)
}
