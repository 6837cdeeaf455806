// Package ceiling says what a cell's headline figure could be at most and what holds it back:
// from the path a cell's bytes take (the bench kind, the payload, the NIC's wire and PCIe
// link, the GPU's PCIe link, NVLinks and memory) it computes the physical ceiling of the figure,
// and from a measurement the fraction of that ceiling it reached and the component or the
// saturated resource that bounded it. Pure arithmetic on plain structs: the callers fill
// Inputs from status.environment and the cell, and print the results. docs/ceilings.md states
// the model and the source of every constant.
package ceiling

import (
	"fmt"
	"strings"
)

// Component names what sets a ceiling or bounds a measurement.
type Component string

const (
	Ethernet  Component = "Ethernet"
	PCIe      Component = "PCIe"
	NVLink    Component = "NVLink"
	GPUMemory Component = "GPU memory"
	CPU       Component = "CPU"
	GPUSMs    Component = "GPU SMs"
)

// Units of the figures a ceiling is computed for, as pkg/figure names them.
const (
	UnitMbps = "Mb/s"
	UnitMBps = "MB/s"
)

// Figures whose ceilings this package computes, named as pkg/figure's table names them. The
// D2D and peer copy figures are not in that table: the names say what they would be.
const (
	FigureRx        = "RxMbps"
	FigureCopyH2D   = "CopyH2DMBps"
	FigureCopyD2H   = "CopyD2HMBps"
	FigureCopyD2D   = "CopyD2DMBps"
	FigureCopyPeer  = "CopyPeerMBps"
	FigureNCCLBusbw = "NCCLBusbwMBps"
)

// A Limit is one component's ceiling on the figure along the cell's path.
type Limit struct {
	Component Component
	// Name says which one: "PCIe Gen5 x16 of GPU 0", "100 Gb/s Ethernet of eth1".
	Name string
	// Value in the figure's unit (Mb/s or MB/s).
	Value float64
	// Model is the arithmetic in words: "8000 B UDP payloads: 8066 B on the wire".
	Model string
}

// Ceiling is the most a cell's headline figure can be: the lowest Limit along its path.
type Ceiling struct {
	// Figure and Unit name the figure the ceiling applies to (pkg/figure's names and units).
	Figure string
	Unit   string
	// Limit is the lowest known one; its Value is the ceiling. Zero when Unknown.
	Limit
	// Unknown says why there is no numeric ceiling ("" when there is one). A path with no wire
	// is Unknown with Component CPU: the CPU bounds it, and Bound names the busy core.
	Unknown string
	// Limits are every known component's ceiling along the path, lowest first.
	Limits []Limit
	// Missing lists the components of the path whose ceiling could not be computed; the
	// ceiling is the lowest of the others, still an upper bound but maybe not the tightest.
	Missing []string
}

// Known says whether the ceiling has a value.
func (c Ceiling) Known() bool { return c.Unknown == "" && c.Value > 0 }

// String prints the ceiling for a report line.
func (c Ceiling) String() string {
	if !c.Known() {
		return "ceiling unknown: " + c.Unknown
	}
	return fmt.Sprintf("%s (%s: %s)", formatValue(c.Unit, c.Value), c.Name, c.Model)
}

// lowest builds the ceiling of a figure from the limits of its path; unknownWhy is the reason
// when none is known, missing the components that could not be computed.
func lowest(figure, unit string, limits []Limit, missing []string, unknownWhy string) Ceiling {
	c := Ceiling{Figure: figure, Unit: unit, Missing: missing}
	var known []Limit
	for _, l := range limits {
		if l.Value > 0 {
			known = append(known, l)
		}
	}
	for i := 1; i < len(known); i++ { // few limits: insertion sort keeps equal ones in path order
		for j := i; j > 0 && known[j].Value < known[j-1].Value; j-- {
			known[j], known[j-1] = known[j-1], known[j]
		}
	}
	c.Limits = known
	if len(known) == 0 {
		if unknownWhy == "" {
			unknownWhy = strings.Join(missing, "; ")
		}
		if unknownWhy == "" {
			unknownWhy = "no component of the path is modelled"
		}
		c.Unknown = unknownWhy
		return c
	}
	c.Limit = known[0]
	return c
}

// unknown is a ceiling with no value and the component that bounds the path anyway.
func unknown(figure, unit string, component Component, why string) Ceiling {
	return Ceiling{Figure: figure, Unit: unit, Limit: Limit{Component: component}, Unknown: why}
}

// formatValue prints a figure value the way people read it: Mb/s as Gb/s, MB/s as GB/s.
func formatValue(unit string, v float64) string {
	switch unit {
	case UnitMbps:
		return fmt.Sprintf("%.2f Gb/s", v/1000)
	case UnitMBps:
		return fmt.Sprintf("%.1f GB/s", v/1000)
	}
	return fmt.Sprintf("%g %s", v, unit)
}

func trimFloat(v float64) string { return fmt.Sprintf("%g", v) }
