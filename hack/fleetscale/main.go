// Command fleetscale runs the fleet scale benchmark (test/fleetscale) once and prints its
// figures. hack/bench/fleet-scale.sh builds what it needs and calls it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/test/fleetscale"
)

func main() {
	var o fleetscale.Options
	flag.IntVar(&o.Nodes, "nodes", 1000, "simulated GPU nodes")
	flag.IntVar(&o.MaxParallel, "max-parallel", 50, "fleet spec.maxParallel")
	flag.Float64Var(&o.RestartAt, "restart-at", 0.5, "kill -9 and restart the manager at this share of verdicts (0: never)")
	flag.DurationVar(&o.RestartAfter, "restart-after", 0, "kill -9 and restart the manager after this long, if -restart-at was not reached first (0: never)")
	flag.StringVar(&o.KwokBin, "kwok", "", "kwok binary")
	flag.StringVar(&o.SchedulerBin, "scheduler", "", "kube-scheduler binary")
	flag.StringVar(&o.ManagerBin, "manager", "", "manager binary")
	flag.StringVar(&o.Assets, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver and etcd directory")
	flag.StringVar(&o.CRDDir, "crds", "config/crd/bases", "CRD directory")
	flag.StringVar(&o.WorkDir, "work-dir", "", "kubeconfig and logs")
	flag.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "give up after")
	flag.StringVar(&o.CPUProfile, "cpu-profile", "", "write a CPU profile of the restarted manager here")
	flag.StringVar(&o.ManagerGoMemLimit, "manager-gomemlimit", "", "the manager's GOMEMLIMIT (as it derives from a container limit of 10/9 of it)")
	flag.StringVar(&o.ManagerGoDebug, "manager-godebug", "", "the manager's GODEBUG (gctrace=1: each collection in its log)")
	flag.StringVar(&o.HeapProfile, "heap-profile", "", "write the manager's live heap here when the run ends")
	flag.StringVar(&o.DumpObjects, "dump-objects", "", "write the round's benches, attempt results, node results and nodes here when the run ends (hack/cachesizes reads them)")
	flag.IntVar(&o.ProfileSeconds, "profile-seconds", 30, "length of that profile")
	suite := flag.String("suite", "", "bench each node with this built-in suite (Quick) instead of one TCP bench")
	flag.Parse()
	o.Log = os.Stderr
	o.Suite = sbv1.SuiteName(*suite)
	// SIGINT or SIGTERM stops the run as its timeout does: measured, and every process stopped.
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Stop = sig.Done()
	res, err := fleetscale.Run(context.Background(), o)
	if res != nil {
		print(res)
		if len(res.LargestBench) > 0 {
			_ = os.WriteFile(filepath.Join(o.WorkDir, "largest-bench.json"), res.LargestBench, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet-scale:", err)
		os.Exit(1)
	}
	if res.Lost+res.Repeated+res.Overlaps > 0 || !res.Restarted && o.RestartAt > 0 {
		os.Exit(1)
	}
}

// Targets of the 10,000-node proof (docs/benchmarks/fleet.md).
const (
	targetAPIPerNode   = 20.0
	targetRSSMiB       = 512.0
	targetLargestBytes = 256 << 10
)

func print(r *fleetscale.Result) {
	n := float64(r.Decided) // per node decided: all of them, or those of a run stopped early
	if n == 0 {
		n = 1
	}
	var reconciles float64
	var names []string
	for k, v := range r.Reconciles {
		reconciles += v
		names = append(names, fmt.Sprintf("%s %.0f", k, v))
	}
	sort.Strings(names)
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	row := func(k, target, v, verdict string) { fmt.Printf("| %-44s | %-9s | %s | %s |\n", k, target, v, verdict) }
	fmt.Println("| figure | target | value | |")
	fmt.Println("|---|---|---|---|")
	row("pool nodes (simulated, KWOK)", "", fmt.Sprintf("%d", r.Nodes), "")
	row("nodes decided (the figures per node divide by it)", "", fmt.Sprintf("%d (round finished: %v)", r.Decided, r.Completed), "")
	row("wall time, fleet created to round done", "", r.Wall.Round(time.Second).String(), "")
	if e := os.Getenv("SPIRALBENCH_BENCH_EVENTS"); e != "" {
		row("manager's --bench-events ($SPIRALBENCH_BENCH_EVENTS)", "", e, "")
	}
	row("manager restarted (SIGKILL) midway", "yes", fmt.Sprintf("%v", r.Restarted), met(r.Restarted))
	if r.Restarted {
		row("benches finished when the manager was killed", "", fmt.Sprintf("%d", r.FinishedAtRestart), "")
	}
	row("reconciles per node benched", "", fmt.Sprintf("%.1f (%v)", reconciles/n, names), "")
	api := r.APIRequests / n
	row("manager API requests per node benched", "<= 20", fmt.Sprintf("%.1f", api), met(api <= targetAPIPerNode))
	row("manager CPU seconds (user+sys, both lives)", "", fmt.Sprintf("%.1f", r.CPUSeconds), "")
	cpu := r.CPUSeconds * 1000 / n
	row("manager CPU per node benched", "1.2 x 1,000 nodes'", fmt.Sprintf("%.1f ms", cpu), "")
	rss := float64(r.PeakRSSBytes) / (1 << 20)
	row("manager peak RSS (VmHWM, larger life)", "< 512 MiB", fmt.Sprintf("%.0f MiB", rss), met(rss < targetRSSMiB))
	row("of that life: peak anonymous RSS (Go), file-backed RSS then (binary)", "", fmt.Sprintf("%.0f MiB, %.0f MiB",
		float64(r.PeakAnonBytes)/(1<<20), float64(r.FileAtPeakBytes)/(1<<20)), "")
	largest := max(r.LargestFleetJSON, r.LargestBenchJSON, r.LargestResultJSON)
	row("largest object written (JSON)", "< 256 KiB", fmt.Sprintf("%.1f KiB (fleet %.1f, bench %.1f, node result %.1f)", float64(largest)/1024,
		float64(r.LargestFleetJSON)/1024, float64(r.LargestBenchJSON)/1024, float64(r.LargestResultJSON)/1024), met(largest < targetLargestBytes))
	row("verdicts", "", fmt.Sprintf("%v", r.Verdicts), "")
	if len(r.Reasons) > 0 {
		row("reasons of the Failed and Invalid nodes", "", fmt.Sprintf("%v", r.Reasons), "")
	}
	row("cell attempts (retries included)", "", fmt.Sprintf("%d", r.Attempts), "")
	row("lost (nodes without a verdict)", "0", fmt.Sprintf("%d", r.Lost), met(r.Lost == 0))
	row("repeated (nodes or steps benched twice)", "0", fmt.Sprintf("%d", r.Repeated), met(r.Repeated == 0))
	row("overlaps (pod timestamps, per node)", "0", fmt.Sprintf("%d", r.Overlaps), met(r.Overlaps == 0))
	var procs []string
	for k := range r.ProcessCPU {
		procs = append(procs, k)
	}
	sort.Slice(procs, func(i, j int) bool { return r.ProcessCPU[procs[i]] > r.ProcessCPU[procs[j]] })
	procs = append(procs, "manager")
	for _, k := range procs {
		v := r.ProcessCPU[k]
		if k == "manager" {
			v = r.CPUSeconds
		}
		row("CPU seconds over the round: "+k, "", fmt.Sprintf("%.0f s (%.0f%% of the wall time on one core)", v, 100*v/r.Wall.Seconds()), "")
	}
	for k, v := range r.ReconcileSeconds {
		row("reconcile time per node decided: "+k, "", fmt.Sprintf("%.1f ms", v*1000/n), "")
	}
	var keys []string
	for k := range r.ManagerRequests {
		keys = append(keys, k)
	}
	fleetRequests := r.FleetRequests()
	sort.Slice(keys, func(i, j int) bool { return r.ManagerRequests[keys[i]] > r.ManagerRequests[keys[j]] })
	if len(keys) > 0 {
		row("fleet controller's API requests per node decided (audit)", "", fmt.Sprintf("%.1f", float64(fleetRequests)/n), "")
	}
	for _, k := range keys {
		row("manager requests per node decided: "+k, "", fmt.Sprintf("%.2f", float64(r.ManagerRequests[k])/n), "")
	}
	for _, p := range r.Problems {
		fmt.Println("problem:", p)
	}
}
