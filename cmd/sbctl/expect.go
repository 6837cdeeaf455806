package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// newExpect is `sbctl expect NODE|CLASS`: what a node (or a node class) should reach in each
// suite step, and where every number comes from.
func newExpect(k *kube) *cobra.Command {
	var catalogFile string
	cmd := &cobra.Command{
		Use:   "expect [NODE|CLASS]",
		Short: "Print what a node (or node class) should reach in each suite step, and the source of each number",
		Example: "  sbctl expect                      # the catalog's classes: what each matches, where its numbers come from\n" +
			"  sbctl expect 4xH200-NV18\n  sbctl expect gpu-node-7\n  sbctl expect spark-a --catalog my-catalog.yaml\n\n" +
			"A node is matched by the facts its node object tells (nvidia.com/gpu.product, allocatable nvidia.com/gpu)\n" +
			"or, once a fleet judged it, by its spiralbench.io/verdict-class label. NIC facts (driver, speed, firmware,\n" +
			"PCI id) come from a bench's environment capture, so a class keyed on them is known only from that label.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat := fleet.BuiltinCatalog()
			if catalogFile != "" {
				data, err := os.ReadFile(catalogFile)
				if err != nil {
					return err
				}
				if cat, err = fleet.ParseCatalog(data); err != nil {
					return err
				}
			}
			if len(args) == 0 {
				return renderCatalog(cmd.OutOrStdout(), cat)
			}
			if cl := cat.Class(args[0]); cl != nil {
				renderExpect(cmd.OutOrStdout(), cl, "class "+cl.Name)
				return nil
			}
			c, _, err := k.client()
			if err != nil {
				return err
			}
			var node corev1.Node
			if err := c.Get(cmd.Context(), client.ObjectKey{Name: args[0]}, &node); err != nil {
				return fmt.Errorf("%s is neither a class of the catalog nor a node: %w", args[0], err)
			}
			facts := fleet.Facts{GPUModel: node.Labels["nvidia.com/gpu.product"]}
			if q, ok := node.Status.Allocatable["nvidia.com/gpu"]; ok {
				facts.GPUCount = int32(q.Value())
			}
			cl := cat.Class(node.Labels["spiralbench.io/verdict-class"])
			how := "its verdict-class label"
			if cl == nil {
				cl, how = cat.MatchClass(facts), "its node object ("+facts.String()+")"
			}
			if cl == nil && cat.Derived != nil {
				renderDerived(cmd.OutOrStdout(), cat.Derived, "node "+node.Name+" reports "+facts.String()+": no class of the catalog matches")
				return nil
			}
			if cl == nil {
				return exitCode{code: exitError, msg: fmt.Sprintf("node %s reports %s: no class of the catalog matches, so a fleet judges it NoReference; add a class (docs/qualification.md)", node.Name, facts)}
			}
			renderExpect(cmd.OutOrStdout(), cl, "node "+node.Name+" is class "+cl.Name+", matched by "+how)
			return nil
		},
	}
	cmd.Flags().StringVar(&catalogFile, "catalog", "", "a catalog file (the schema of pkg/fleet/data/catalog.yaml) instead of the built-in one")
	return cmd
}

// renderExpect prints a class: what it is, its link expectations, the steps that do not apply,
// and one row per reference with the worst value that still holds and the number's source.
func renderExpect(w io.Writer, cl *fleet.Class, heading string) {
	fmt.Fprintf(w, "%s: %s\n", heading, cl.Description)
	fmt.Fprintf(w, "matches nodes reporting: %s\n", cl.Match)
	if e := cl.Expect; e.NVLink || e.PCIeGeneration > 0 {
		fmt.Fprintf(w, "links: NVLink between every GPU pair %v, GPU PCIe gen %d x%d\n", e.NVLink, e.PCIeGeneration, e.PCIeWidth)
	}
	if len(cl.NotApplicable) > 0 {
		fmt.Fprintf(w, "steps that do not apply (no GPU on this node): %v\n", cl.NotApplicable)
	}
	if len(cl.References) == 0 {
		fmt.Fprintln(w, "no figure references: each step must run and pass its own rules")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tFIGURE\tEXPECTED\tTOLERANCE\tHOLDS AT\tUNIT\tSOURCE")
	for _, r := range cl.References {
		dir := ">="
		if !figure.HigherIsBetter(r.Figure) {
			dir = "<="
		}
		if r.Relative() {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t>= %.2f of its ceiling\t%s\t%s\n", r.Step, r.Figure, r.MinFractionOfCeiling, figure.UnitOf(r.Figure), r.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f%%\t%s %.0f\t%s\t%s\n", r.Step, r.Figure, r.Expected, r.TolerancePercent, dir, r.Bound(), figure.UnitOf(r.Figure), r.Source)
	}
	_ = tw.Flush()
}

// renderDerived prints what a node of no class is held to: its own hardware's ceilings.
func renderDerived(w io.Writer, d *fleet.Derived, heading string) {
	fmt.Fprintf(w, "%s, so a fleet judges it against its own hardware (class %s):\n", heading, fleet.DerivedClassName)
	fmt.Fprintf(w, "each passed step's RxMbps, CopyH2DMBps, CopyD2HMBps and NCCLBusbwMBps must reach %.2f of the ceiling of its path,\n", d.MinFractionOfCeiling)
	fmt.Fprintln(w, "computed from the facts the step's bench captured (sbctl explain BENCH shows each ceiling and what bounds it);")
	fmt.Fprintln(w, "a step whose ceiling is unknown (a path with no wire, a fact not captured) is noted and judged only by its own rules.")
	fmt.Fprintf(w, "source of %.2f: %s\n", d.MinFractionOfCeiling, d.Source)
}
