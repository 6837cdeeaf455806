package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/runstore"
)

func newReport(k *kube) *cobra.Command {
	var dir string
	var s3 s3Flags
	cmd := &cobra.Command{
		Use:   "report [NAMESPACE/]NAME|s3://BUCKET/PATH/TO/RUN/|RUN-ID -o DIR",
		Short: "Write a run's HTML report and its plots (PNG, SVG) into DIR",
		Long: "Write report.html and plots/ for a bench (read from the cluster) or a run in the results bucket " +
			"(an s3:// folder, or a run id with --s3-bucket), as the operator uploads them beside runs.csv; the page " +
			"names the data files and links only what is in DIR (`sbctl get` writes the data and the report together).",
		Example: "  sbctl report tcp-sweep -o out/\n" +
			"  sbctl report s3://spiralbench-results/default/tcp-sweep/RUN-ID/ -o out/",
		Args: cobra.ExactArgs(1), ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			sb, err := load(cmd.Context(), k, s3, args[0])
			if err != nil {
				return err
			}
			files, err := htmlreport.Standalone(sb) // the data files are `sbctl get`'s: the page links none
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := htmlreport.WriteDir(dir, files); err != nil {
				return err
			}
			abs, _ := filepath.Abs(filepath.Join(dir, htmlreport.FileName))
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d figures)\n", abs, (len(files)-1)/2)
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", ".", "directory to write report.html and plots/ into")
	s3.add(cmd)
	return cmd
}

// load reads a bench from the cluster, or a run from the bucket when arg is an s3:// URI or
// --s3-bucket is given.
func load(ctx context.Context, k *kube, s3 s3Flags, arg string) (*sbv1.SpiralBench, error) {
	if runstore.IsRef(arg) || s3.bucket != "" {
		sb, err := s3.store().Fetch(ctx, arg)
		return sb, s3.explain(err)
	}
	return k.get(ctx, arg)
}
