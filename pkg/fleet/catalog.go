package fleet

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

//go:embed data/catalog.yaml
var builtinCatalogYAML []byte

// BuiltinCatalogYAML is the catalog compiled into the manager (the chart ships the same file).
func BuiltinCatalogYAML() []byte { return builtinCatalogYAML }

// Catalog is the versioned reference data: node classes with what each step should reach.
type Catalog struct {
	Version int     `json:"version"`
	Classes []Class `json:"classes"`
	// Derived, when set, judges a node that matches no class against its own hardware: each
	// step's figures against the ceilings of their paths (derived.go) instead of NoReference.
	Derived *Derived `json:"derived,omitempty"`
}

// Class is a kind of node, matched on the facts its steps report.
type Class struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Match       Match  `json:"match"`
	// Expect are link properties a node of the class has; a node without them fails.
	Expect Expect `json:"expect,omitempty"`
	// NotApplicable are steps that cannot run on the class (GPU steps on a CPU-only node):
	// they end "no GPU on this node" and do not count against it.
	NotApplicable []string    `json:"notApplicable,omitempty"`
	References    []Reference `json:"references"`
}

// Match keys; unset keys match anything.
type Match struct {
	// GPUModel is a case-insensitive substring of the GPU's name (status.environment.gpuModel).
	GPUModel string `json:"gpuModel,omitempty"`
	GPUCount int32  `json:"gpuCount,omitempty"`
	// NICDriver is the NIC's kernel driver (mlx5_core for ConnectX).
	NICDriver string `json:"nicDriver,omitempty"`
	// NICSpeedMbps is the link speed the NIC reports.
	NICSpeedMbps int64 `json:"nicSpeedMbps,omitempty"`
	// NICFirmware is the NIC's firmware version (ethtool -i firmware-version) or a leading part
	// of it ending at a dot or space: "28.39" matches "28.39.1002 (MT_0000000838)".
	NICFirmware string `json:"nicFirmware,omitempty"`
	// NICPCIID is the NIC's PCI vendor:device id, the NIC's model as the hardware names it
	// (lspci -n; 15b3:1021 is a ConnectX-7): exact, four hex digits each side.
	NICPCIID string `json:"nicPCIID,omitempty"`
	// NoGPU matches nodes that report no GPU at all.
	NoGPU bool `json:"noGPU,omitempty"`
}

// Expect are properties of the class's links.
type Expect struct {
	// NVLink: every GPU pair is joined by NVLink (peer path NV<n>).
	NVLink bool `json:"nvlink,omitempty"`
	// PCIeGeneration and PCIeWidth the GPUs' links train at.
	PCIeGeneration int32 `json:"pcieGeneration,omitempty"`
	PCIeWidth      int32 `json:"pcieWidth,omitempty"`
}

// Reference is what one figure of one step should reach, and the source of the number: an
// expected value with a tolerance, or a fraction of the ceiling the node's own hardware sets
// for the figure (one reference then serves every SKU of the class).
type Reference struct {
	Step             string  `json:"step"`
	Figure           string  `json:"figure"`
	Expected         float64 `json:"expected,omitempty"`
	TolerancePercent float64 `json:"tolerancePercent,omitempty"`
	// MinFractionOfCeiling, instead of Expected: the figure reaches at least this fraction of
	// its path's ceiling on the node (pkg/ceiling; sbctl explain).
	MinFractionOfCeiling float64 `json:"minFractionOfCeiling,omitempty"`
	Source               string  `json:"source"`
}

// Relative says whether the reference is a fraction of the node's ceiling.
func (r Reference) Relative() bool { return r.MinFractionOfCeiling > 0 }

// Bound is the worst value that still holds: expected less the tolerance when higher is
// better, expected plus it otherwise. A relative reference's bound depends on the node
// (BoundOn).
func (r Reference) Bound() float64 {
	margin := r.Expected * r.TolerancePercent / 100
	if figure.HigherIsBetter(r.Figure) {
		return r.Expected - margin
	}
	return r.Expected + margin
}

// Holds says whether a measured value meets the reference.
func (r Reference) Holds(v float64) bool {
	if figure.HigherIsBetter(r.Figure) {
		return v >= r.Bound()
	}
	return v <= r.Bound()
}

// Facts are what a node reported, the keys of class matching.
type Facts struct {
	GPUModel     string
	GPUCount     int32
	NVLink       *bool
	PCIeGen      int32
	PCIeWidth    int32
	NICDriver    string
	NICSpeedMbps int64
	NICFirmware  string
	NICPCIID     string
	// Hardware are the facts judged on their own (facts_hardware.go), not class keys.
	Hardware Hardware
}

// hasNIC says whether any NIC fact was reported; the NIC facts come from one interface.
func (f Facts) hasNIC() bool { return f.NICDriver != "" || f.NICFirmware != "" || f.NICPCIID != "" }

// FactsOf reads the facts a bench's environment capture reported.
func FactsOf(sb *sbv1.SpiralBench) Facts {
	var f Facts
	e := sb.Status.Environment
	if e == nil {
		return f
	}
	f.Hardware = hardwareOf(sb)
	f.GPUModel, f.PCIeGen, f.PCIeWidth = e.GPUModel, e.GPUPCIeGeneration, e.GPUPCIeWidth
	for _, n := range e.NICs {
		if !f.hasNIC() {
			f.NICDriver, f.NICSpeedMbps, f.NICFirmware, f.NICPCIID = n.Driver, n.SpeedMbps, n.Firmware, n.PCIID
		}
	}
	return f
}

// Merge fills f's unset facts from o.
func (f Facts) Merge(o Facts) Facts {
	if f.GPUModel == "" {
		f.GPUModel = o.GPUModel
	}
	if f.GPUCount == 0 {
		f.GPUCount = o.GPUCount
	}
	if f.NVLink == nil {
		f.NVLink = o.NVLink
	}
	if f.PCIeGen == 0 {
		f.PCIeGen, f.PCIeWidth = o.PCIeGen, o.PCIeWidth
	}
	if !f.hasNIC() {
		f.NICDriver, f.NICSpeedMbps, f.NICFirmware, f.NICPCIID = o.NICDriver, o.NICSpeedMbps, o.NICFirmware, o.NICPCIID
	}
	f.Hardware = f.Hardware.merge(o.Hardware)
	return f
}

// String says what a node reported, for the NoReference reason.
func (f Facts) String() string {
	gpu := "no GPU"
	if f.GPUModel != "" || f.GPUCount > 0 {
		gpu = fmt.Sprintf("%d x %q", f.GPUCount, f.GPUModel)
	}
	nic := "no NIC facts"
	if f.hasNIC() {
		nic = fmt.Sprintf("NIC %s %d Mb/s", f.NICDriver, f.NICSpeedMbps)
		if f.NICFirmware != "" {
			nic += fmt.Sprintf(" firmware %q", f.NICFirmware)
		} else {
			nic += " no firmware"
		}
		if f.NICPCIID != "" {
			nic += " PCI id " + f.NICPCIID
		} else {
			nic += " no PCI id"
		}
	}
	return gpu + ", " + nic
}

// String lists the class's match keys, for sbctl expect.
func (m Match) String() string {
	if m.NoGPU {
		return "no GPU"
	}
	var keys []string
	if m.GPUModel != "" {
		keys = append(keys, fmt.Sprintf("gpuModel %q", m.GPUModel))
	}
	if m.GPUCount > 0 {
		keys = append(keys, fmt.Sprintf("gpuCount %d", m.GPUCount))
	}
	if m.NICDriver != "" {
		keys = append(keys, "nicDriver "+m.NICDriver)
	}
	if m.NICSpeedMbps > 0 {
		keys = append(keys, fmt.Sprintf("nicSpeedMbps %d", m.NICSpeedMbps))
	}
	if m.NICFirmware != "" {
		keys = append(keys, fmt.Sprintf("nicFirmware %q", m.NICFirmware))
	}
	if m.NICPCIID != "" {
		keys = append(keys, "nicPCIID "+m.NICPCIID)
	}
	return strings.Join(keys, ", ")
}

// ParseCatalog reads and checks a catalog: known version, unique class names, known figures,
// a source for every number.
func ParseCatalog(data []byte) (*Catalog, error) {
	var c Catalog
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if c.Version != 1 {
		return nil, fmt.Errorf("catalog: version %d, this manager reads version 1", c.Version)
	}
	seen := map[string]bool{}
	for _, cl := range c.Classes {
		if cl.Name == "" || seen[cl.Name] {
			return nil, fmt.Errorf("catalog: class name %q empty or repeated", cl.Name)
		}
		seen[cl.Name] = true
		if id := cl.Match.NICPCIID; id != "" && !pciIDPattern.MatchString(id) {
			return nil, fmt.Errorf("catalog: class %s: nicPCIID %q is not a PCI vendor:device id: write it as lspci -n does, for example 15b3:1021", cl.Name, id)
		}
		for _, r := range cl.References {
			if _, ok := figure.Lookup(r.Figure); !ok {
				return nil, fmt.Errorf("catalog: class %s step %s: unknown figure %q", cl.Name, r.Step, r.Figure)
			}
			if r.Source == "" || r.Step == "" || r.TolerancePercent < 0 {
				return nil, fmt.Errorf("catalog: class %s figure %s: needs a step, a source and a tolerance >= 0", cl.Name, r.Figure)
			}
			if err := r.checkForm(); err != nil {
				return nil, fmt.Errorf("catalog: class %s step %s figure %s: %w", cl.Name, r.Step, r.Figure, err)
			}
		}
	}
	if d := c.Derived; d != nil && (d.MinFractionOfCeiling <= 0 || d.MinFractionOfCeiling > 1 || d.Source == "") {
		return nil, fmt.Errorf("catalog: derived needs minFractionOfCeiling in (0, 1] and a source saying why that fraction")
	}
	return &c, nil
}

// pciIDPattern is a PCI vendor:device id as lspci -n and the data plane write it.
var pciIDPattern = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{4}$`)

// BuiltinCatalog is the compiled-in catalog.
func BuiltinCatalog() *Catalog {
	c, err := ParseCatalog(builtinCatalogYAML)
	if err != nil {
		panic(err) // a build defect: TestBuiltinCatalogParses fails first
	}
	return c
}

// Class finds a class by name.
func (c *Catalog) Class(name string) *Class {
	for i := range c.Classes {
		if c.Classes[i].Name == name {
			return &c.Classes[i]
		}
	}
	return nil
}

// MatchClass is the first class whose match keys all hold for the facts; nil when none does.
func (c *Catalog) MatchClass(f Facts) *Class {
	for i := range c.Classes {
		if c.Classes[i].Match.matches(f) {
			return &c.Classes[i]
		}
	}
	return nil
}

func (m Match) matches(f Facts) bool {
	if m.NoGPU {
		return f.GPUModel == "" && f.GPUCount == 0
	}
	if m.GPUModel == "" && m.GPUCount == 0 && m.NICDriver == "" && m.NICFirmware == "" && m.NICPCIID == "" {
		return false // a class must key on something
	}
	return (m.GPUModel == "" || strings.Contains(strings.ToLower(f.GPUModel), strings.ToLower(m.GPUModel))) &&
		(m.GPUCount == 0 || m.GPUCount == f.GPUCount) &&
		(m.NICDriver == "" || m.NICDriver == f.NICDriver) &&
		(m.NICSpeedMbps == 0 || m.NICSpeedMbps == f.NICSpeedMbps) &&
		(m.NICFirmware == "" || firmwareMatches(m.NICFirmware, f.NICFirmware)) &&
		(m.NICPCIID == "" || m.NICPCIID == f.NICPCIID)
}

// firmwareMatches: the reported firmware is the wanted version, or starts with it and goes on
// after a dot or a space ("28.39" holds for "28.39.1002" but not for "28.390.1"). A node that
// reports no firmware matches no class that names one.
func firmwareMatches(want, got string) bool {
	if got == want {
		return true
	}
	return strings.HasPrefix(got, want) && (got[len(want)] == '.' || got[len(want)] == ' ')
}

// NotApplicable says whether a step cannot run on the class.
func (c *Class) IsNotApplicable(step string) bool {
	for _, s := range c.NotApplicable {
		if s == step {
			return true
		}
	}
	return false
}
