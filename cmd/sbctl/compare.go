package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/spiralbench/spiralbench/pkg/compare"
)

func newCompare(k *kube) *cobra.Command {
	var output string
	var s3 s3Flags
	opts := compare.DefaultOptions
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare run B against run A cell by cell; exit 2 when a cell got significantly worse",
		Long: "A and B are benches (NAME in the namespace, or NAMESPACE/NAME), s3:// run folders, or run ids with --s3-bucket. Each cell present " +
			"in both is compared per metric over its repeats with Welch's t-test; a cell is worse when the change is " +
			"significant (p < --alpha), in the bad direction and beyond --tolerance percent, or when it failed in B.\n\n" +
			"Exit codes: 0 nothing worse, 1 an error, 2 at least one cell worse.",
		Example: "  sbctl compare tcp-before tcp-after\n" +
			"  sbctl compare tcp-sweep lab/tcp-sweep            # the same bench in namespace lab\n" +
			"  sbctl compare tcp-before tcp-after --tolerance 5 --alpha 0.01 -o json\n" +
			"  SBCTL_S3_ENDPOINT=http://s3:9000 sbctl compare RUN-ID-A RUN-ID-B --s3-bucket spiralbench-results",
		Args: cobra.ExactArgs(2), ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "json"); err != nil {
				return err
			}
			a, err := load(cmd.Context(), k, s3, args[0])
			if err != nil {
				return fmt.Errorf("run A (%s): %w", args[0], err)
			}
			b, err := load(cmd.Context(), k, s3, args[1])
			if err != nil {
				return fmt.Errorf("run B (%s): %w", args[1], err)
			}
			res, err := compare.Compare(a, b, opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				data, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s\n", data)
			} else if err := compare.WriteText(out, res); err != nil {
				return err
			}
			if res.Worse > 0 {
				return exitCode{code: exitWorse}
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&opts.TolerancePct, "tolerance", opts.TolerancePct, "percent a cell may lose before it counts as worse")
	cmd.Flags().Float64Var(&opts.Alpha, "alpha", opts.Alpha, "significance level of the two-sided Welch's t-test")
	addOutputFlag(cmd, &output, "json")
	s3.add(cmd)
	return cmd
}
