package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/runstore"
)

func newGet(k *kube) *cobra.Command {
	var dir string
	var s3 s3Flags
	cmd := &cobra.Command{
		Use:   "get [NAMESPACE/]NAME|s3://BUCKET/PATH/TO/RUN/|RUN-ID [-o DIR]",
		Short: "Write a run's folder into DIR: runs.csv, results.jsonl, environment.json, spec.json, report.html, plots/",
		Long: "For a bench in the cluster, the files are rendered from its status by the code the operator uploads " +
			"them with, so they equal the bucket's copy and need no bucket credentials. For an s3:// folder, or a run " +
			"id with --s3-bucket, every object of the run's folder is downloaded as it is.",
		Example: "  sbctl get tcp-sweep -o tcp-sweep/\n" +
			"  sbctl get s3://spiralbench-results/default/tcp-sweep/20261125-2210-1a2b3c/ -o run/\n" +
			"  SBCTL_S3_ENDPOINT=http://10.244.0.1:7070 sbctl get 20261125-2210-1a2b3c --s3-bucket spiralbench-results",
		Args: cobra.ExactArgs(1), ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				dir = filepath.Base(filepath.Clean(args[0]))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			var written []string
			if runstore.IsRef(args[0]) || s3.bucket != "" {
				var err error
				if written, err = s3.store().Download(cmd.Context(), args[0], dir); err != nil {
					return s3.explain(err)
				}
			} else {
				sb, err := k.get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				files, err := report.Files(sb)
				if err != nil {
					return err
				}
				views, err := htmlreport.Files(sb)
				if err != nil {
					return err
				}
				for name, data := range views {
					files[name] = data
				}
				if err := htmlreport.WriteDir(dir, files); err != nil {
					return err
				}
				for name := range files {
					written = append(written, name)
				}
			}
			sort.Strings(written)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %d files into %s:\n", len(written), dir)
			for _, name := range written {
				fmt.Fprintf(out, "  %s\n", name)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "", "directory to write the run's files into (default: a folder named after the run)")
	s3.add(cmd)
	return cmd
}
