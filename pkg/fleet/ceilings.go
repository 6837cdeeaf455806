package fleet

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// StepCeiling is a step's headline figure read against the ceiling its node's hardware sets
// (pkg/explain, from the bench's own environment capture).
type StepCeiling struct {
	// Fraction is the figure over Ceiling; meaningful when Unknown is empty.
	Fraction float64
	Ceiling  float64
	Unit     string
	// Name is the component that sets the ceiling: "100 Gb/s Ethernet of eth1".
	Name string
	// Unknown says why there is no ceiling ("no wire (NIC eth0 is veth, loopback or a memory port): ...").
	Unknown string
}

// Known says whether the ceiling and the fraction are known.
func (c StepCeiling) Known() bool { return c.Unknown == "" && c.Ceiling > 0 }

// String is the fraction in words: "0.948 of 99.18 Gb/s (100 Gb/s Ethernet of eth1)".
func (c StepCeiling) String() string {
	if !c.Known() {
		return "ceiling unknown: " + c.Unknown
	}
	return fmt.Sprintf("%.3f of %s (%s)", c.Fraction, explain.FormatValue(c.Unit, c.Ceiling), c.Name)
}

// ceilingsOf reads every figure with a ceiling model of the bench's headline cell (a Valid one)
// against its ceiling; figures the cell did not measure are left out.
func ceilingsOf(sb *sbv1.SpiralBench) map[string]StepCeiling {
	c := headlineCell(sb)
	if c == nil || c.State != sbv1.CellValid {
		return nil
	}
	out := map[string]StepCeiling{}
	for _, name := range figure.Names() {
		if !explain.Modelled(sb, name) {
			continue
		}
		e := explain.CellFigure(sb, c, name)
		if e.Measured == nil {
			continue
		}
		sc := StepCeiling{Unit: e.Unit, Name: e.Name, Unknown: e.Unknown}
		switch {
		case e.Fraction != nil:
			sc.Fraction, sc.Ceiling = *e.Fraction, *e.Ceiling
		case sc.Unknown == "":
			sc.Unknown = e.BoundBy // a path with no wire: the CPU moved the bytes
		}
		out[name] = sc
	}
	return out
}
