package ceiling

import "fmt"

// WellUnder is the fraction of the ceiling below which a measurement is not the ceiling's
// doing: a saturated resource, if any, is named instead.
const WellUnder = 0.8

// Bounding is how a measurement reads against its ceiling.
type Bounding struct {
	// Fraction is measured / ceiling; meaningful only when FractionKnown.
	Fraction      float64
	FractionKnown bool
	// Component that bounded the measurement; "" when nothing can be named.
	Component Component
	// BoundBy names it with its evidence: "PCIe Gen5 x16 of GPU 0 at 0.87 of 57.6 GB/s",
	// "RX core 3 busy 99 %", "GPU SMs 100 % (fft)".
	BoundBy string
}

// Bound reads a measurement (in the ceiling's unit) against its ceiling. The component whose
// ceiling is lowest bounds it, unless the measurement is well under the ceiling (below
// WellUnder of it) or the ceiling is unknown, and a resource of the evidence is saturated:
// then that resource does. With neither, BoundBy says what is known.
func Bound(measured float64, c Ceiling, evidence ...Evidence) Bounding {
	var b Bounding
	if c.Known() {
		b.Fraction, b.FractionKnown = measured/c.Value, true
	}
	saturated, hasSaturated := busiest(evidence)
	switch {
	case b.FractionKnown && (b.Fraction >= WellUnder || !hasSaturated):
		b.Component = c.Component
		b.BoundBy = fmt.Sprintf("%s at %.2f of %s", c.Name, b.Fraction, formatValue(c.Unit, c.Value))
	case hasSaturated:
		b.Component, b.BoundBy = saturated.Component, saturated.Text
	case c.Component == CPU:
		b.Component = CPU
		b.BoundBy = "CPU (" + c.Unknown + "; no core saturated)"
	default:
		b.BoundBy = "ceiling unknown: " + c.Unknown
	}
	return b
}

// busiest is the saturated evidence with the highest share.
func busiest(evidence []Evidence) (Evidence, bool) {
	var top Evidence
	found := false
	for _, e := range evidence {
		if e.Saturated && (!found || e.Share > top.Share) {
			top, found = e, true
		}
	}
	return top, found
}
