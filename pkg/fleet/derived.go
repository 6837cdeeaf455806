package fleet

import (
	"fmt"
	"sort"

	"github.com/spiralbench/spiralbench/pkg/explain"
)

// Derived says what a node whose class is not in the catalog should reach: every figure with a
// ceiling model at least MinFractionOfCeiling of the ceiling its own hardware sets.
type Derived struct {
	MinFractionOfCeiling float64 `json:"minFractionOfCeiling"`
	// Source says why that fraction (the measured fractions it was chosen from).
	Source string `json:"source"`
}

// DerivedClassName is the class a node judged against its own hardware is recorded as.
const DerivedClassName = "derived-from-hardware"

// checkForm: a reference states an expected value or a fraction of the ceiling, not both; a
// fraction is at most 1 and only for figures with a ceiling model.
func (r Reference) checkForm() error {
	switch {
	case r.MinFractionOfCeiling < 0:
		return fmt.Errorf("minFractionOfCeiling %g is below 0", r.MinFractionOfCeiling)
	case r.Relative() && r.Expected != 0:
		return fmt.Errorf("set expected or minFractionOfCeiling, not both")
	case r.Relative() && r.MinFractionOfCeiling > 1:
		return fmt.Errorf("minFractionOfCeiling %g is above 1", r.MinFractionOfCeiling)
	case r.Relative() && !explain.HasModel(r.Figure):
		return fmt.Errorf("minFractionOfCeiling needs a figure with a ceiling model (RxMbps, CopyH2DMBps, CopyD2HMBps, NCCLBusbwMBps)")
	}
	return nil
}

// derivedClass is the class a node matching none is judged as: for each passed step, each
// figure whose ceiling is known becomes a relative reference. Nil when no step's ceiling is
// known, with why for the NoReference reason; notes name the steps left without one.
func derivedClass(d *Derived, steps []StepOutcome) (cl *Class, notes []string, why string) {
	c := &Class{Name: DerivedClassName, Description: "derived from this node's hardware"}
	for _, s := range steps {
		if s.State != StepPassedState {
			continue
		}
		names := make([]string, 0, len(s.Ceilings))
		for name := range s.Ceilings {
			names = append(names, name)
		}
		sort.Strings(names)
		known := false
		for _, name := range names {
			sc := s.Ceilings[name]
			if !sc.Known() {
				if why == "" {
					why = s.Step + ": " + sc.String()
				}
				continue
			}
			known = true
			c.References = append(c.References, Reference{Step: s.Step, Figure: name, MinFractionOfCeiling: d.MinFractionOfCeiling,
				Source: "derived from this node's hardware: " + d.Source})
		}
		if !known && len(names) > 0 {
			notes = append(notes, s.Step+": no derived expectation, "+s.Ceilings[names[0]].String())
		}
	}
	if len(c.References) == 0 {
		if why == "" {
			why = "no passed step measured a figure with a ceiling model"
		}
		return nil, nil, why
	}
	return c, notes, ""
}
