package figure

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A Unit is how status counts a figure (integers: Mb/s, ns, m%) and how people read it (Gb/s,
// µs, %). Every table, page, plot and metric scales and prints through it, so a figure reads
// the same in each.
type Unit struct {
	// Name is what status counts in: "Mb/s".
	Name string
	// Shown is what tables and plots label the scaled value with: "Gb/s".
	Shown string
	// Scale divides a counted value into a shown one.
	Scale float64
	// Decimals a table prints of a shown value.
	Decimals int
}

// The units of the table.
var (
	Mbps             = Unit{Name: "Mb/s", Shown: "Gb/s", Scale: 1000, Decimals: 2}
	PacketsPerSecond = Unit{Name: "packets/s", Shown: "Mpps", Scale: 1e6, Decimals: 2}
	Packets          = Unit{Name: "packets", Shown: "packets", Scale: 1, Decimals: 0}
	PPM              = Unit{Name: "ppm", Shown: "%", Scale: 1e4, Decimals: 2}
	MilliPercent     = Unit{Name: "m%", Shown: "%", Scale: 1000, Decimals: 1}
	Nanoseconds      = Unit{Name: "ns", Shown: "µs", Scale: 1000, Decimals: 2}
	MBps             = Unit{Name: "MB/s", Shown: "MB/s", Scale: 1, Decimals: 0}
)

// Scaled is a counted value in the shown unit: 94000 Mb/s is 94 Gb/s.
func (u Unit) Scaled(v float64) float64 { return v / u.Scale }

// Format prints a counted value in the shown unit with the unit's decimals: 94000 Mb/s, "94.00".
func (u Unit) Format(v float64) string { return u.FormatPrec(v, u.Decimals) }

// FormatPrec prints a counted value in the shown unit with prec decimals; -1 prints the fewest
// digits that read it back exactly (a rule's threshold, a target: 2500 Mb/s, "2.5").
func (u Unit) FormatPrec(v float64, prec int) string {
	if prec < 0 {
		return fmt.Sprintf("%g", u.Scaled(v))
	}
	return fmt.Sprintf("%.*f", prec, u.Scaled(v))
}

// FormatStat prints a statistic as mean, sep, sample standard deviation in the shown unit;
// none when there is none. Reports write " ± ", the wide sbctl table "±".
func (u Unit) FormatStat(s *sbv1.Statistic, sep, none string) string {
	if s == nil {
		return none
	}
	return u.Format(float64(s.Mean)) + sep + u.Format(float64(s.StdDev))
}
