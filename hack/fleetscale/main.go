// Command fleetscale runs the fleet scale benchmark (test/fleetscale) once and prints its
// figures. hack/bench/fleet-scale.sh builds what it needs and calls it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/spiralbench/spiralbench/test/fleetscale"
)

func main() {
	var o fleetscale.Options
	flag.IntVar(&o.Nodes, "nodes", 1000, "simulated GPU nodes")
	flag.IntVar(&o.MaxParallel, "max-parallel", 50, "fleet spec.maxParallel")
	flag.Float64Var(&o.RestartAt, "restart-at", 0.5, "kill -9 and restart the manager at this share of verdicts (0: never)")
	flag.StringVar(&o.KwokBin, "kwok", "", "kwok binary")
	flag.StringVar(&o.SchedulerBin, "scheduler", "", "kube-scheduler binary")
	flag.StringVar(&o.ManagerBin, "manager", "", "manager binary")
	flag.StringVar(&o.Assets, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver and etcd directory")
	flag.StringVar(&o.CRDDir, "crds", "config/crd/bases", "CRD directory")
	flag.StringVar(&o.WorkDir, "work-dir", "", "kubeconfig and logs")
	flag.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "give up after")
	flag.Parse()
	o.Log = os.Stderr
	res, err := fleetscale.Run(context.Background(), o)
	if res != nil {
		print(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet-scale:", err)
		os.Exit(1)
	}
	if res.Lost+res.Repeated+res.Overlaps > 0 || !res.Restarted && o.RestartAt > 0 {
		os.Exit(1)
	}
}

func print(r *fleetscale.Result) {
	n := float64(r.Nodes)
	var reconciles float64
	var names []string
	for k, v := range r.Reconciles {
		reconciles += v
		names = append(names, fmt.Sprintf("%s %.0f", k, v))
	}
	sort.Strings(names)
	row := func(k, v string) { fmt.Printf("| %-40s | %s |\n", k, v) }
	fmt.Println("| figure | value |")
	fmt.Println("|---|---|")
	row("nodes benched (simulated, KWOK)", fmt.Sprintf("%d", r.Nodes))
	row("wall time, fleet created to round done", r.Wall.Round(time.Second).String())
	row("manager restarted (SIGKILL) midway", fmt.Sprintf("%v", r.Restarted))
	row("reconciles per node benched", fmt.Sprintf("%.1f (%v)", reconciles/n, names))
	row("manager API requests per node benched", fmt.Sprintf("%.1f", r.APIRequests/n))
	row("manager CPU seconds (user+sys, both lives)", fmt.Sprintf("%.1f", r.CPUSeconds))
	row("manager CPU per node benched", fmt.Sprintf("%.1f ms", r.CPUSeconds*1000/n))
	row("manager peak RSS (VmHWM, larger life)", fmt.Sprintf("%.0f MiB", float64(r.PeakRSSBytes)/(1<<20)))
	row("largest fleet object (JSON)", fmt.Sprintf("%.0f KiB", float64(r.LargestFleetJSON)/1024))
	row("largest SpiralBench object (JSON)", fmt.Sprintf("%.1f KiB", float64(r.LargestBenchJSON)/1024))
	row("verdicts", fmt.Sprintf("%v", r.Verdicts))
	row("cell attempts (retries included)", fmt.Sprintf("%d", r.Attempts))
	row("lost (nodes without a verdict)", fmt.Sprintf("%d", r.Lost))
	row("repeated (nodes benched twice)", fmt.Sprintf("%d", r.Repeated))
	row("overlaps (pod timestamps, per node)", fmt.Sprintf("%d", r.Overlaps))
	for _, p := range r.Problems {
		fmt.Println("problem:", p)
	}
}
