package fleetscale

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fleet scale benchmark's small variant: 50 simulated nodes (KWOK, a fake kubelet) on a
// real apiserver and etcd, maxParallel 10, the manager killed at half the verdicts and
// restarted. Every node must get exactly one verdict, no bench may overlap another on a node.
// hack/bench/fleet-scale.sh runs the same at 1,000 nodes and prints the figures.
func TestFleetOfFiftySimulatedNodesSurvivesAManagerCrash(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: run `make test-go`, which builds kube-apiserver and etcd with hack/k8s-assets.sh")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	out, err := exec.Command(filepath.Join(root, "hack", "kwok.sh")).Output()
	if err != nil {
		t.Fatalf("hack/kwok.sh (builds KWOK from the Go module proxy once): %v", err)
	}
	kwok := strings.TrimSpace(string(out))
	scheduler := filepath.Join(assets, "kube-scheduler")
	if _, err := os.Stat(scheduler); err != nil {
		// The e2e cluster's binaries include it: build them once (hack/k8s-assets.sh cluster).
		build := exec.Command(filepath.Join(root, "hack", "k8s-assets.sh"), "cluster")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("hack/k8s-assets.sh cluster (kube-scheduler): %v\n%s", err, out)
		}
	}
	dir := t.TempDir()
	manager := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", manager, "./cmd/manager")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the manager: %v\n%s", err, out)
	}
	res, err := Run(context.Background(), Options{
		Nodes: nodes(), MaxParallel: 10, RestartAt: 0.5,
		KwokBin: kwok, SchedulerBin: scheduler, ManagerBin: manager, Assets: assets, CRDDir: filepath.Join(root, "config", "crd", "bases"),
		WorkDir: dir, Timeout: 150 * time.Second, Log: testWriter{t}, DumpObjects: filepath.Join(dir, "objects"),
	})
	if err != nil {
		logs(t, dir)
		t.Fatal(err)
	}
	t.Logf("%+v", *res)
	if !res.Restarted || res.Lost != 0 || res.Repeated != 0 || res.Overlaps != 0 || res.Verdicts["Passed"] != nodes() {
		logs(t, dir)
		t.Fatalf("restarted %v lost %d repeated %d overlaps %d verdicts %v problems %v",
			res.Restarted, res.Lost, res.Repeated, res.Overlaps, res.Verdicts, res.Problems)
	}
	if res.LargestFleetJSON >= 256<<10 || res.LargestResultJSON >= 256<<10 {
		t.Fatalf("fleet object %d bytes, largest node result %d bytes", res.LargestFleetJSON, res.LargestResultJSON)
	}
	// The dump hack/cachesizes reads holds the round: a bench, an attempt record, a result and a
	// Node at least for every node.
	for file := range DumpedKinds {
		items, err := ReadDumped(filepath.Join(dir, "objects", file))
		if err != nil || len(items) < nodes() {
			t.Fatalf("%s: %d objects for %d nodes (%v)", file, len(items), nodes(), err)
		}
	}
	// The fleet controller's own API requests (the apiserver's audit log: its results, status,
	// benches and node verdicts) stay within 15 per node benched.
	if per := float64(res.FleetRequests()) / float64(res.Decided); per > 15 || res.Decided == 0 {
		t.Fatalf("the fleet controller made %.1f API requests per node benched (at most 15): %v", per, res.ManagerRequests)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func logs(t *testing.T, dir string) {
	for _, name := range []string{"manager-1.log", "manager-2.log", "kube-scheduler.log", "kwok.log"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		t.Logf("--- %s (tail)\n%s", name, data)
	}
}

// nodes is 50, or $FLEET_SCALE_NODES for a quick look.
func nodes() int {
	if n, err := strconv.Atoi(os.Getenv("FLEET_SCALE_NODES")); err == nil && n > 0 {
		return n
	}
	return 50
}

// The same at 20 simulated nodes with a suite of two steps: the manager killed at half the
// verdicts loses and repeats no step (exactly one bench per node and step), and no two steps'
// benches overlap on a node.
func TestFleetSuiteOfTwentySimulatedNodesSurvivesAManagerCrash(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: run `make test-go`, which builds kube-apiserver and etcd with hack/k8s-assets.sh")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	out, err := exec.Command(filepath.Join(root, "hack", "kwok.sh")).Output()
	if err != nil {
		t.Fatalf("hack/kwok.sh: %v", err)
	}
	dir := t.TempDir()
	manager := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", manager, "./cmd/manager")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the manager: %v\n%s", err, out)
	}
	const n = 20
	res, err := Run(context.Background(), Options{
		Nodes: n, MaxParallel: 10, RestartAt: 0.5, SuiteSteps: 2,
		KwokBin: strings.TrimSpace(string(out)), SchedulerBin: filepath.Join(assets, "kube-scheduler"), ManagerBin: manager, Assets: assets,
		CRDDir: filepath.Join(root, "config", "crd", "bases"), WorkDir: dir, Timeout: 150 * time.Second, Log: testWriter{t},
	})
	if err != nil {
		logs(t, dir)
		t.Fatal(err)
	}
	t.Logf("%+v", *res)
	if !res.Restarted || res.Lost != 0 || res.Repeated != 0 || res.Overlaps != 0 || res.Verdicts["Passed"] != n {
		logs(t, dir)
		t.Fatalf("restarted %v lost %d repeated %d overlaps %d verdicts %v problems %v",
			res.Restarted, res.Lost, res.Repeated, res.Overlaps, res.Verdicts, res.Problems)
	}
}
