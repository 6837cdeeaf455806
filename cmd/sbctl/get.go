package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/runstore"
)

// The layouts get writes: the bucket's folder, or DAQIRI's results folders.
const (
	layoutSpiralBench = "spiralbench"
	layoutDAQIRI      = "daqiri"
)

func newGet(k *kube) *cobra.Command {
	var dir, layout string
	var s3 s3Flags
	cmd := &cobra.Command{
		Use:   "get [NAMESPACE/]NAME|s3://BUCKET/PATH/TO/RUN/|RUN-ID [-o DIR] [--layout daqiri]",
		Short: "Write a run's folder into DIR: runs.csv, results.jsonl, environment.json, spec.json, report.html, plots/",
		Long: "For a bench in the cluster, the files are rendered from its status by the code the operator uploads " +
			"them with, so they equal the bucket's copy and need no bucket credentials. For an s3:// folder, or a run " +
			"id with --s3-bucket, every object of the run's folder is downloaded as it is.\n\n" +
			"--layout daqiri writes the run as DAQIRI's workflows do instead, so its scripts read it without renaming: " +
			"DIR (default bench-results) gets <timestamp>-<backend>-<mode>/runs.csv in DAQIRI's columns and units " +
			"(raw Gb/s counted at payload + 64 B per packet, DAQIRI's header_size; an unmeasured share nan), and " +
			"<timestamp>-dpdk-mq/runs.csv for a raw queue matrix, the file DAQIRI's plot_mq_payload_sweep.py reads.",
		Example: "  sbctl get tcp-sweep -o tcp-sweep/\n" +
			"  sbctl get s3://spiralbench-results/default/tcp-sweep/20261125-2210-1a2b3c/ -o run/\n" +
			"  SBCTL_S3_ENDPOINT=http://10.244.0.1:7070 sbctl get 20261125-2210-1a2b3c --s3-bucket spiralbench-results\n" +
			"  sbctl get raw-queue-scaling --layout daqiri   # bench-results/<timestamp>-dpdk-mq/runs.csv",
		Args: cobra.ExactArgs(1), ValidArgsFunction: k.benchNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if layout != layoutSpiralBench && layout != layoutDAQIRI {
				return fmt.Errorf("--layout %q: want %s or %s", layout, layoutSpiralBench, layoutDAQIRI)
			}
			if dir == "" {
				dir = filepath.Base(filepath.Clean(args[0]))
				if layout == layoutDAQIRI {
					dir = "bench-results" // DAQIRI's own results folder
				}
			}
			var written []string
			var err error
			switch {
			case layout == layoutDAQIRI:
				written, err = writeRendered(dir, func() (map[string][]byte, error) {
					sb, err := load(cmd.Context(), k, s3, args[0])
					if err != nil {
						return nil, err
					}
					return report.DAQIRILayout(sb)
				})
			case runstore.IsRef(args[0]) || s3.bucket != "":
				if err = os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				if written, err = s3.store().Download(cmd.Context(), args[0], dir); err != nil {
					err = s3.explain(err)
				}
			default:
				written, err = writeRendered(dir, func() (map[string][]byte, error) {
					sb, err := k.get(cmd.Context(), args[0])
					if err != nil {
						return nil, err
					}
					return bucketFiles(sb)
				})
			}
			if err != nil {
				return err
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
	cmd.Flags().StringVarP(&dir, "output", "o", "", "directory to write the run's files into (default: a folder named after the run; bench-results with --layout daqiri)")
	cmd.Flags().StringVar(&layout, "layout", layoutSpiralBench, "spiralbench (the bucket's folder) or daqiri (DAQIRI's <timestamp>-<backend>-<mode>/runs.csv)")
	s3.add(cmd)
	return cmd
}

// bucketFiles are the files the operator uploads for a bench, rendered from its status.
func bucketFiles(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	files, err := report.Files(sb)
	if err != nil {
		return nil, err
	}
	views, err := htmlreport.Files(sb)
	if err != nil {
		return nil, err
	}
	for name, data := range views {
		files[name] = data
	}
	return files, nil
}

// writeRendered writes what render returns into dir and names the files written.
func writeRendered(dir string, render func() (map[string][]byte, error)) ([]string, error) {
	files, err := render()
	if err != nil {
		return nil, err
	}
	if err := htmlreport.WriteDir(dir, files); err != nil {
		return nil, err
	}
	var written []string
	for name := range files {
		written = append(written, name)
	}
	return written, nil
}
