package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// metricsAddr is where the suite's manager serves its metrics.
var metricsAddr string

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// TestDashboardAndAlertsHaveSeries runs benches through the real reconciler (the kubelet
// stand-in ends their pods), lets Debian's Prometheus scrape the manager's metrics endpoint with
// the chart's alert rules loaded, then evaluates every dashboard panel query and every alert
// expression: each must return at least one series.
func TestDashboardAndAlertsHaveSeries(t *testing.T) {
	requireEnv(t)
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is missing: run hack/deps-views.sh (make test-go does) to install Debian's prometheus")
	}
	ns := newNamespace(t)
	gpuTestNode(t, "dash-node-1")
	ctx := context.Background()

	// A bench that passes, with a GPU workload on every cell (SM share in its summaries).
	gpu := onTestNode(shortRun(sbtesting.MakeSpiralBench("gpu", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 2, 0).
		Workload(sbv1.WorkloadFFT).ServerGPUs(1).Obj(), "dash-node-1")
	if err := k8sClient.Create(ctx, gpu); err != nil {
		t.Fatal(err)
	}
	(&kubeletStandIn{t: t, ns: ns, bench: "gpu", summary: func(cell, repeat int, role string) string {
		return strings.Replace(summaryJSON(role, "Valid", 9000+int64(repeat)*100), `"gpu_sm_mpct":-1`, `"gpu_sm_mpct":64000`, 1)
	}}).runUntil(60*time.Second, sbv1.PhaseCompleted)

	// A bench whose second cell fails, so its rule breaks; its bucket is unreachable (its
	// Secret exists, or the results preflight would keep the bench from running at all).
	s3 := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: map[string]string{sbv1.LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("AKIDEXAMPLE"), "secretAccessKey": []byte("dashboard")}}
	if err := k8sClient.Create(ctx, s3); err != nil {
		t.Fatal(err)
	}
	broken := onTestNode(shortRun(sbtesting.MakeSpiralBench("broken", ns).Transport(sbv1.TransportTCP).Payloads(1000, 8000).Pairs(1), 1, 0).
		Rule(sbv1.AcceptanceRule{Name: "every-cell", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThan, Value: 0,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}}).Obj(), "dash-node-1")
	broken.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://127.0.0.1:1", Bucket: "bench", Region: "us-east-1",
		CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	if err := k8sClient.Create(ctx, broken); err != nil {
		t.Fatal(err)
	}
	(&kubeletStandIn{t: t, ns: ns, bench: "broken", fate: func(cell, attempt int, role string) *podFate {
		if cell == 1 && role == cellpod.RoleClient {
			return &podFate{exitCode: 1, message: "spiral-dataplane: connect: connection refused"}
		}
		return nil
	}}).runUntil(60*time.Second, sbv1.PhaseCompleted)
	eventually(t, 15*time.Second, "ResultsUploaded=False on broken", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		_ = k8sClient.Get(ctx, client.ObjectKeyFromObject(broken), cur)
		c := meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionResultsUploaded)
		return c != nil && c.Status == "False", fmt.Sprint(c)
	})

	// A fleet whose one node fails a suite step, for the fleet panels (verdicts, reason codes).
	poolNode(t, "dash-fleet-1", "dash-"+ns)
	f := sbtesting.MakeFleet("dash", ns, "dash-"+ns).Obj()
	f.Spec.Template, f.Spec.Suite = nil, &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{tcpStep("floor", 2000, sbv1.StepStop)}}
	if err := k8sClient.Create(ctx, f); err != nil {
		t.Fatal(err)
	}
	(&fleetKubelet{t: t, ns: ns}).runUntil(60*time.Second, "dash", "the fleet's round finished", roundFinished(1))

	rules := filepath.Join(repoRoot, "charts", "spiralbench", "files", "prometheus-rules.yaml")
	prom := startPrometheus(t, promBin, rules)
	eventually(t, 60*time.Second, "Prometheus scraped the manager", func() (bool, string) {
		n, err := prom.count(`spiralbench_bench_verdict{namespace="` + ns + `"}`)
		return err == nil && n >= 2, fmt.Sprint(n, err)
	})

	// Every panel target of the dashboard, with its variables set to this test's namespace.
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "charts", "spiralbench", "files", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$namespace", ns, "$bench", ".*", "$__rate_interval", "5m")
	exprs := map[string]string{}
	for _, p := range dash.Panels {
		for i, target := range p.Targets {
			exprs[fmt.Sprintf("panel %q target %d", p.Title, i)] = vars.Replace(target.Expr)
		}
	}
	var ruleFile struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	data, err = os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &ruleFile); err != nil {
		t.Fatal(err)
	}
	for _, g := range ruleFile.Groups {
		for _, r := range g.Rules {
			exprs["alert "+r.Alert] = r.Expr
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("only %d expressions found", len(exprs))
	}
	for what, expr := range exprs {
		eventually(t, 30*time.Second, what+" returns series: "+expr, func() (bool, string) {
			n, err := prom.count(expr)
			return err == nil && n > 0, fmt.Sprint(n, " series, ", err)
		})
	}
	// Prometheus loaded the alert rules and evaluates them without error.
	eventually(t, 30*time.Second, "alert rules healthy and firing", func() (bool, string) {
		return prom.rulesHealthy()
	})
}

type prometheus struct {
	t    *testing.T
	base string
}

// startPrometheus runs Debian's prometheus scraping the manager every second, with the rules.
func startPrometheus(t *testing.T, bin, rules string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(rules)
	config := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [%q]\n"+
		"scrape_configs:\n- job_name: spiralbench-manager\n  static_configs: [{targets: [%q]}]\n", abs, metricsAddr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Logf("prometheus log:\n%s", out)
		}
	})
	return &prometheus{t: t, base: "http://" + addr}
}

// count evaluates an instant query and returns how many series it gave.
func (p *prometheus) count(expr string) (int, error) {
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct{ Result []json.RawMessage }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if body.Status != "success" {
		return 0, fmt.Errorf("query %q: %s", expr, body.Error)
	}
	return len(body.Data.Result), nil
}

// rulesHealthy says whether every loaded rule evaluated without error and each alert fired.
func (p *prometheus) rulesHealthy() (bool, string) {
	resp, err := http.Get(p.base + "/api/v1/rules")
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, State, LastError string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return false, err.Error()
	}
	n := 0
	for _, g := range body.Data.Groups {
		for _, r := range g.Rules {
			n++
			if r.Health != "ok" || r.State == "inactive" {
				return false, fmt.Sprintf("rule %s: health %s state %s %s", r.Name, r.Health, r.State, r.LastError)
			}
		}
	}
	return n > 0, fmt.Sprintf("%d rules", n)
}
