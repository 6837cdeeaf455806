package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/compare"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// sbctl is tested against a real kube-apiserver and etcd (envtest) through a kubeconfig file,
// the way kubectl plugins are used. No controller runs: the tests write finished benches'
// status themselves.
var (
	kubeconfig string
	k8sClient  client.Client
	skipReason string
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		skipReason = "KUBEBUILDER_ASSETS is not set: run `make test-go`, which builds kube-apiserver and etcd with hack/k8s-assets.sh"
		os.Exit(m.Run())
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot start envtest:", err)
		os.Exit(1)
	}
	code := func() int {
		user, err := env.AddUser(envtest.User{Name: "sbctl-test", Groups: []string{"system:masters"}}, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if kubeconfig, err = writeKubeconfig(user); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(filepath.Dir(kubeconfig))
		// sbctl's own scheme: a type the tests use that sbctl lacks fails here, as it would for a user
		if k8sClient, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	_ = env.Stop()
	os.Exit(code)
}

// writeKubeconfig writes the envtest user's kubeconfig with a second context, "elsewhere",
// made current and pointing at a closed port: only --context reaches the apiserver.
func writeKubeconfig(user *envtest.AuthenticatedUser) (string, error) {
	data, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return "", err
	}
	good := cfg.Contexts[cfg.CurrentContext]
	bad := *good
	bad.Cluster = "elsewhere"
	other := *cfg.Clusters[good.Cluster]
	other.Server = "https://127.0.0.1:1"
	cfg.Clusters["elsewhere"] = &other
	cfg.Contexts["elsewhere"], cfg.Contexts["envtest"] = &bad, good
	cfg.CurrentContext = "elsewhere"
	dir, err := os.MkdirTemp("", "sbctl-kubeconfig-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "config")
	return path, clientcmd.WriteToFile(*cfg, path)
}

func requireEnv(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// create stores a finished fixture bench in namespace ns.
func create(t *testing.T, ns string, sb *sbv1.SpiralBench) {
	t.Helper()
	ctx := context.Background()
	status := sb.Status
	sb = sb.DeepCopy()
	sb.Namespace, sb.UID, sb.ResourceVersion, sb.Status = ns, "", "", sbv1.SpiralBenchStatus{}
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatalf("create %s: %v", sb.Name, err)
	}
	sb.Status = status
	if err := k8sClient.Status().Update(ctx, sb); err != nil {
		t.Fatalf("status of %s: %v", sb.Name, err)
	}
	// Each attempt's repeats as the controller keeps them: a record per attempt.
	for _, c := range status.CellResults {
		for a := int32(0); a < c.Attempts; a++ {
			var reps []sbv1.RepeatResult
			for _, r := range c.RepeatResults {
				if r.Attempt == a {
					reps = append(reps, r)
				}
			}
			rec := attempts.New(sb, c.Index, a, reps, "", false)
			rec.OwnerReferences = []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBench", Name: sb.Name, UID: sb.UID, Controller: ptr.To(true)}}
			if err := k8sClient.Create(ctx, rec); err != nil {
				t.Fatalf("attempt %d of cell %d of %s: %v", a, c.Index, sb.Name, err)
			}
		}
	}
}

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sbctl-"}}
	if err := k8sClient.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// sbctl runs the command tree as the kubectl plugin, with the test kubeconfig and --context.
func sbctl(t *testing.T, ns string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut, "kubectl-spiralbench")
	root.SetArgs(append([]string{"--kubeconfig", kubeconfig, "--context", "envtest", "-n", ns}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String() + errOut.String(), err
}

func TestResultsOutputFormats(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, true))

	// -o json|yaml are the results, not the whole object (no managedFields)
	out, err := sbctl(t, ns, "results", "tcp-sweep", "-o", "json")
	if err != nil {
		t.Fatal(err, out)
	}
	var fromJSON benchResults
	if err := json.Unmarshal([]byte(out), &fromJSON); err != nil || fromJSON.Bench != "tcp-sweep" || len(fromJSON.CellResults) != 9 ||
		strings.Contains(out, "managedFields") || len(fromJSON.CellResults[0].RepeatResults) == 0 {
		t.Errorf("-o json: %v bench %q cells %d, the first one's repeats from its attempt results\n%s", err, fromJSON.Bench, len(fromJSON.CellResults), out)
	}
	// The figures the bench does not store, derived from those repeats, are printed too.
	if c := fromJSON.CellResults[0]; c.TXMbps == nil || c.TXMbps.Mean <= 0 || c.PacketsPerSecond == nil || c.CPU == nil || c.Spread == nil {
		t.Errorf("-o json: cell 0 lacks a derived figure: tx %+v pps %+v cpu %+v spread %+v", c.TXMbps, c.PacketsPerSecond, c.CPU, c.Spread)
	}
	out, err = sbctl(t, ns, "results", "tcp-sweep", "-o", "yaml")
	var fromYAML benchResults
	if err != nil || yaml.Unmarshal([]byte(out), &fromYAML) != nil || fromYAML.Bench != "tcp-sweep" || fromYAML.Namespace != ns {
		t.Errorf("-o yaml: %v %s/%s", err, fromYAML.Namespace, fromYAML.Bench)
	}
	// -o csv is runs.csv, DAQIRI's columns first
	out, err = sbctl(t, ns, "results", "tcp-sweep", "-o", "csv")
	if err != nil || !strings.HasPrefix(out, "lang,backend,post_process,payload,") {
		t.Errorf("-o csv: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "results", "tcp-sweep", "-o", "wide")
	if err != nil || !strings.Contains(out, "LAT min/p50/p99/p99.9/max µs") || !strings.Contains(out, "8000 B x 4 pairs") ||
		!strings.Contains(out, "client pod: OOMKilled") {
		t.Errorf("-o wide: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "results", "tcp-sweep")
	if err != nil || !strings.Contains(out, "cells 8/9 ok, 1 failed") || !strings.Contains(out, "Passed=False (CellsFailed): 1 of 9 cells failed: cell 2 (1 MiB x 4 pairs): client pod: OOMKilled") {
		t.Errorf("table: %v\n%s", err, out)
	}
	if _, err := sbctl(t, ns, "results", "tcp-sweep", "-o", "xml"); err == nil || !strings.Contains(err.Error(), `output format "xml"`) {
		t.Errorf("-o xml: %v", err)
	}
}

// get writes the run's folder as the operator uploads it, rendered from status.
func TestGetWritesTheRunsFolder(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, true))
	dir := filepath.Join(t.TempDir(), "run")
	out, err := sbctl(t, ns, "get", "tcp-sweep", "-o", dir)
	if err != nil {
		t.Fatal(err, out)
	}
	for _, f := range []string{"runs.csv", "results.jsonl", "environment.json", "spec.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil || !strings.Contains(out, "  "+f+"\n") {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

// A bench deleted while watched ends the view with a clear line and exit 3 (no verdict).
func TestWatchOfADeletedBenchEndsCleanly(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	sb := fixture.TCPSweep("running", 1, true)
	sb.Status.Phase = sbv1.PhaseRunning
	create(t, ns, sb)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		_ = k8sClient.Delete(context.Background(), &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Name: "running", Namespace: ns}})
	}()
	out, err := sbctl(t, ns, "watch", "running", "--live=false", "--timeout", "30s")
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != exitNotPassed || !strings.Contains(out, "was deleted while watched") {
		t.Errorf("watch of a deleted bench: %v\n%s", err, out)
	}
}

func TestKubectlFlagsChooseTheCluster(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.UDPWorkloads("wl"))
	var out bytes.Buffer
	root := newRoot(&out, &out, "kubectl-spiralbench")
	root.SetArgs([]string{"--kubeconfig", kubeconfig, "-n", ns, "--request-timeout", "2s", "results", "wl"})
	if err := root.Execute(); err == nil {
		t.Error("the kubeconfig's current context points at a closed port; without --context the command must fail")
	}
	if _, err := sbctl(t, ns, "results", "wl"); err != nil {
		t.Errorf("with --context envtest: %v", err)
	}
	if _, err := sbctl(t, "default", "results", "wl"); err == nil {
		t.Error("-n default must not find a bench of another namespace")
	}
}

func TestReportWritesThePageAndPlots(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, true))
	dir := filepath.Join(t.TempDir(), "out")
	out, err := sbctl(t, ns, "report", "tcp-sweep", "-o", dir)
	if err != nil {
		t.Fatal(err, out)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Contains(page, []byte(">"+ns+"/tcp-sweep</h1>")) {
		t.Fatalf("report.html: %v", err)
	}
	for _, f := range []string{"plots/throughput-gbps.svg", "plots/throughput-gbps.png", "plots/rate-mpps.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out, filepath.Join(dir, "report.html")) {
		t.Errorf("does not say where the report is: %s", out)
	}
}

func TestCompareExitCodes(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("before", 1, false))
	after := fixture.TCPSweep("after", 1, true) // 1 MiB x 4 pairs failed
	create(t, ns, after)

	out, err := sbctl(t, ns, "compare", "before", "before")
	if err != nil || !strings.Contains(out, "no cell got worse") {
		t.Errorf("a run against itself: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "compare", "before", "after", "-o", "json")
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != exitWorse {
		t.Fatalf("a failed cell in B: err %v, want exit code %d\n%s", err, exitWorse, out)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Worse != 1 {
		t.Errorf("-o json: %v worse %d", err, res.Worse)
	}
	if _, err := sbctl(t, ns, "compare", "before", "missing"); err == nil || errors.As(err, &ec) {
		t.Errorf("a missing bench is an error (exit 1), got %v", err)
	}
}

func TestCompletionListsBenches(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, false))
	create(t, ns, fixture.UDPWorkloads("udp-gpu-workloads"))
	out, err := sbctl(t, ns, "__complete", "results", "")
	if err != nil || !strings.Contains(out, "tcp-sweep\tTCP Completed") || !strings.Contains(out, "udp-gpu-workloads\tUDP Completed") {
		t.Errorf("bench names: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "__complete", "results", "tcp-sweep", "-o", "")
	if err != nil || !strings.Contains(out, "json\nyaml\nwide\n") {
		t.Errorf("-o values: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "__complete", "-n", "")
	if err != nil || !strings.Contains(out, ns+"\n") {
		t.Errorf("-n values: %v\n%s", err, out)
	}
	out, err = sbctl(t, ns, "completion", "bash")
	if err != nil || !strings.Contains(out, "kubectl-spiralbench") {
		t.Errorf("bash completion: %v", err)
	}
}

// TestKubectlRunsThePlugin installs the binary as kubectl-spiralbench with its completion
// helper on PATH and drives it through the real kubectl: plugin discovery, flags, completion.
func TestKubectlRunsThePlugin(t *testing.T) {
	requireEnv(t)
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl beside the envtest binaries (%v): hack/k8s-assets.sh envtest builds it", err)
	}
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, false))
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-spiralbench"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	helper, err := os.ReadFile("kubectl_complete-spiralbench")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl_complete-spiralbench"), helper, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("plugin", "list"); !strings.Contains(out, filepath.Join(bin, "kubectl-spiralbench")) {
		t.Errorf("kubectl plugin list:\n%s", out)
	}
	if out := run("spiralbench", "--context", "envtest", "-n", ns, "results", "tcp-sweep", "-o", "wide"); !strings.Contains(out, "8000 B x 4 pairs") {
		t.Errorf("kubectl spiralbench results:\n%s", out)
	}
	if out := run("__complete", "spiralbench", "--context", "envtest", "-n", ns, "results", ""); !strings.Contains(out, "tcp-sweep") {
		t.Errorf("kubectl completion of a bench name:\n%s", out)
	}
	if out := run("spiralbench", "--help"); !strings.Contains(out, "kubectl spiralbench [command]") {
		t.Errorf("help does not say kubectl spiralbench:\n%s", out)
	}
}

func TestWatchOfAFinishedBenchGatesOnItsVerdict(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.TCPSweep("tcp-sweep", 1, true))
	create(t, ns, fixture.UDPWorkloads("wl"))
	out, err := sbctl(t, ns, "watch", "tcp-sweep", "--live=false")
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != exitNotPassed || !strings.Contains(out, "Completed  cells 8/9 ok, 1 failed") {
		t.Errorf("a bench that did not pass: %v\n%s", err, out)
	}
	if out, err := sbctl(t, ns, "watch", "wl", "--live=true"); err != nil || !strings.Contains(out, "\033[H\033[2J") ||
		!strings.Contains(out, "Passed=True (NoRules)") {
		t.Errorf("live mode on a passed bench: %v\n%q", err, out)
	}
	if _, err := sbctl(t, ns, "watch", "wl", "--live=maybe"); err == nil {
		t.Error("--live=maybe must be refused")
	}
}

// watch --log draws the live view from a file of progress lines (no cluster needed).
func TestWatchLogDrawsTheLastFrame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.log")
	var lines []string
	for s := int64(0); s <= 3; s++ {
		lines = append(lines, "other output", fmt.Sprintf(`{"event":"progress","role":"server","unit":"pair","t_ms":%d,"streams":[{"id":0,"rx_bytes":%d},{"id":1,"rx_bytes":%d}]}`,
			s*1000, s*s*125000000, s*250000000))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	root := newRoot(&out, &out, "sbctl")
	root.SetArgs([]string{"watch", "--log", path})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	// last second: pair 0 went from 4 to 9 x 125 MB (5 Gb/s), pair 1 2 Gb/s; pair 0 peaked now
	frame := out.String()[strings.LastIndex(out.String(), "\033[2J"):]
	for _, want := range []string{"pair 0", "5.00 Gb/s", "2.00 Gb/s", "NOW    TX        -        RX     7.00 Gb/s   Full-duplex        -", "PEAK   TX        -        RX     7.00 Gb/s"} {
		if !strings.Contains(frame, want) {
			t.Errorf("last frame lacks %q:\n%s", want, frame)
		}
	}
}

// `sbctl fleet NODE` lists the node's rows of every fleet round, oldest first, and only its.
func TestFleetPrintsOneNodesHistory(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	for _, r := range []struct {
		round   int32
		node    string
		verdict sbv1.NodeVerdict
		reasons []string
	}{{2, "gpu-7", sbv1.NodeFailed, []string{"StepFailed:tcp"}}, {1, "gpu-7", sbv1.NodePassed, nil}, {1, "gpu-8", sbv1.NodePassed, nil}} {
		res := &sbv1.SpiralBenchNodeResult{
			ObjectMeta: metav1.ObjectMeta{Name: fleet.ResultName("pool", r.round, r.node, "0123456789abcdef"), Namespace: ns,
				Labels: map[string]string{sbv1.LabelResultFleet: "pool", sbv1.LabelResultNode: fleet.NodeLabelValue(r.node)}},
			Fleet: "pool", Round: r.round, Result: sbv1.FleetNode{Name: r.node, Verdict: r.verdict, Reasons: r.reasons, Step: "tcp"},
		}
		if err := k8sClient.Create(context.Background(), res); err != nil {
			t.Fatal(err)
		}
	}
	out, err := sbctl(t, ns, "fleet", "gpu-7")
	if err != nil {
		t.Fatal(err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "pool   1      Passed") || !strings.Contains(lines[2], "StepFailed:tcp") {
		t.Fatalf("history:\n%s", out)
	}
	if out, err := sbctl(t, ns, "fleet", "gpu-9"); err == nil {
		t.Fatalf("a node without results should be an error: %s", out)
	}
}

// `sbctl fleet --fleet NAME` prints the fleet's upgrade cohorts and its round's degrading nodes.
func TestFleetViewPrintsCohortsAndDegradingNodes(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	f := sbtesting.MakeFleet("pool", ns, "pool").MinRxMbps(900).UpgradeGate(sbv1.UpgradeDriverGPU).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	f.Status.Round = 3
	f.Status.UpgradeCohorts = []sbv1.UpgradeCohort{{Class: "h200", Driver: "580.2", Figure: "RxMbps", Decision: "Worse", Canaries: 8, Reference: 64,
		DifferenceMilliPercent: -5100, Message: "driver 580.2 on class h200: RxMbps worse by 5.1%"}}
	if err := k8sClient.Status().Update(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	for i, reasons := range [][]string{{"Degrading"}, nil} {
		node := fmt.Sprintf("gpu-%d", i)
		res := &sbv1.SpiralBenchNodeResult{
			ObjectMeta: metav1.ObjectMeta{Name: fleet.ResultName("pool", 3, node, "0123456789abcdef"), Namespace: ns,
				Labels: map[string]string{sbv1.LabelResultFleet: "pool", sbv1.LabelResultRound: "3", sbv1.LabelResultNode: fleet.NodeLabelValue(node)}},
			Fleet: "pool", Round: 3, Result: sbv1.FleetNode{Name: node, Verdict: sbv1.NodePassed, Reasons: reasons, Reason: "degrading: RxMbps -10.0 a round"},
		}
		if err := k8sClient.Create(context.Background(), res); err != nil {
			t.Fatal(err)
		}
	}
	out, err := sbctl(t, ns, "fleet", "--fleet", "pool")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"h200", "580.2", "Worse", "-5.1%", "DEGRADING NODE", "gpu-0"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gpu-1") {
		t.Errorf("a node that is not degrading is listed:\n%s", out)
	}
	if out, err := sbctl(t, ns, "fleet"); err == nil || !strings.Contains(err.Error()+out, "--fleet") {
		t.Errorf("no node and no fleet: %v %s", err, out)
	}
}
