package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// tcpStep is a one-cell TCP step (1 s, one repeat), with an RxMbps floor when floor > 0.
func tcpStep(name string, floor int64, onFailure sbv1.StepFailurePolicy) sbv1.SuiteStep {
	spec := sbtesting.MakeFleet("x", "x", "x").Obj().Spec.Template.Spec
	if floor > 0 {
		spec.Acceptance = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{
			{Name: "rx-floor", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: floor}}}
	}
	return sbv1.SuiteStep{Name: name, Template: &sbv1.FleetBenchTemplate{Spec: spec}, OnFailure: onFailure, DeadlineSeconds: 600}
}

// gpuStep is an NCCL or GPUCopy step on every GPU of the node, without topology.server.gpus.
func gpuStep(name string, transport sbv1.Transport) sbv1.SuiteStep {
	return sbv1.SuiteStep{Name: name, UseAllGPUs: ptr.To(true),
		Template: &sbv1.FleetBenchTemplate{Spec: sbv1.SpiralBenchSpec{Transport: transport}}}
}

func suiteFleet(name, ns, pool string, suite *sbv1.SuiteSpec) *sbv1.SpiralBenchFleet {
	f := sbtesting.MakeFleet(name, ns, pool).Verdicts(true).Obj()
	f.Spec.Template, f.Spec.Suite = nil, suite
	return f
}

// stepsOf counts a fleet's benches per node and step.
func stepsOf(t *testing.T, ns, fleet string) map[string]int {
	out := map[string]int{}
	for _, sb := range fleetBenches(t, ns, fleet) {
		for _, n := range benchNodesOf(&sb) {
			out[n+"/"+sb.Labels[sbv1.LabelFleetStep]]++
		}
	}
	return out
}

// A built-in suite with the fleet's own steps: on nodes without GPUs the Quick suite's copy
// and NCCL steps say "no GPU on this node" and do not run, the socket steps run one after the
// other on each node (never two benches on a node at once), a failing step with onFailure
// Stop skips the rest (StepSkipped), and the verdict's reason codes reach the row and the node.
// Mid-suite the rows are reset to Pending as a manager that lost its status write would see
// them: state comes from the benches, so no step runs twice and none is lost.
func TestFleetSuiteRunsStepsInOrderAndStopsAtAFailure(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"su-a", "su-b"} {
		poolNode(t, n, "suite")
	}
	f := suiteFleet("suite", ns, "suite", &sbv1.SuiteSpec{Builtin: sbv1.SuiteQuick, Steps: []sbv1.SuiteStep{
		tcpStep("floor", 900, sbv1.StepStop), tcpStep("after", 0, sbv1.StepContinue)}})
	f.Spec.References = &sbv1.ReferenceSpec{}
	// The built-in tcp step is replaced by a short one, so the test runs in seconds.
	f.Spec.Suite.Steps = append(f.Spec.Suite.Steps, tcpStep("tcp", 0, sbv1.StepContinue))
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"su-b": 500}}
	k.runUntil(60*time.Second, "suite", "su-a through its first step", func(f *sbv1.SpiralBenchFleet) bool {
		return stepsOf(t, ns, "suite")["su-a/floor"] == 1
	})
	// Stale rows: every node's result back to Pending, nothing about the benches (retried
	// while the controller writes too).
	var results sbv1.SpiralBenchNodeResultList
	if err := k8sClient.List(context.Background(), &results, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelResultFleet: "suite"}); err != nil {
		t.Fatal(err)
	}
	for i := range results.Items {
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := &sbv1.SpiralBenchNodeResult{}
			if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(&results.Items[i]), cur); err != nil {
				return err
			}
			cur.Result.Verdict, cur.Result.Bench, cur.Result.Step = sbv1.NodePending, "", ""
			return k8sClient.Update(context.Background(), cur)
		}); err != nil {
			t.Fatal(err)
		}
	}
	done := k.runUntil(90*time.Second, "suite", "round 1 finished", roundFinished(1))
	got := stepsOf(t, ns, "suite")
	want := map[string]int{"su-a/tcp": 1, "su-a/floor": 1, "su-a/after": 1, "su-b/tcp": 1, "su-b/floor": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s benched %d times, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("benches per node and step %v, want %v (no copy or NCCL bench without GPUs, no step after a Stop)", got, want)
	}
	if len(k.overlaps) > 0 {
		t.Errorf("two steps' benches on one node at once: %v", k.overlaps)
	}
	a, b := rowOf(done, "su-a"), rowOf(done, "su-b")
	if a.Verdict != sbv1.NodePassed || a.Class != "cpu-only" || len(a.Reasons) != 0 {
		t.Errorf("su-a %+v", a)
	}
	if b.Verdict != sbv1.NodeFailed || strings.Join(b.Reasons, ",") != "StepFailed:floor,StepSkipped:after" || !strings.Contains(b.Reason, "floor: ") {
		t.Errorf("su-b %+v", b)
	}
	node := getNode(t, "su-b")
	if node.Labels[sbv1.LabelVerdict] != "Failed" || node.Annotations[sbv1.AnnotationVerdictReasons] != "StepFailed:floor,StepSkipped:after" ||
		node.Labels[sbv1.LabelVerdictValidUntil] == "" || node.Labels[sbv1.LabelVerdictClass] != "cpu-only" {
		t.Errorf("su-b labels %v annotations %v", node.Labels, node.Annotations)
	}
	if b.ValidUntil == nil || b.LastBenchTime == nil || b.ValidUntil.Sub(b.LastBenchTime.Time) != 24*time.Hour {
		t.Errorf("su-b's verdict is valid 24 h by default: %+v", b)
	}
}

// A step whose bench hangs ends at its deadline: the fleet suspends the bench and marks it,
// the bench stops its running attempt at once (its pods are deleted, not left to run to their
// cell deadline), the step is StepDeadlineExceeded and the node Failed, and the next step runs
// (onFailure Continue) as soon as the stopped pods have left the node.
func TestFleetSuiteStepDeadline(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "sd-a", "deadline")
	slow := tcpStep("slow", 0, sbv1.StepContinue)
	slow.DeadlineSeconds = 10
	// The hung attempt's own deadline is far past the step's: were it only suspended, the node
	// would stay held by it, and the next step queued, for 300 s.
	slow.Template.Spec.Run.CellDeadlineSeconds = ptr.To[int32](300)
	f := suiteFleet("deadline", ns, "deadline", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{slow, tcpStep("next", 0, sbv1.StepStop)}})
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, hold: func(sb *sbv1.SpiralBench) bool { return sb.Labels[sbv1.LabelFleetStep] == "slow" }}
	done := k.runUntil(90*time.Second, "deadline", "round 1 finished", roundFinished(1))
	row := rowOf(done, "sd-a")
	if row.Verdict != sbv1.NodeFailed || strings.Join(row.Reasons, ",") != "StepDeadlineExceeded:slow" {
		t.Fatalf("row %+v", row)
	}
	for _, sb := range fleetBenches(t, ns, "deadline") {
		if sb.Labels[sbv1.LabelFleetStep] != "slow" {
			continue
		}
		if !ptr.Deref(sb.Spec.Suspend, false) || sb.Annotations["spiralbench.io/fleet-deadline-exceeded"] == "" {
			t.Errorf("the slow step's bench is not suspended and marked: %v %v", sb.Spec.Suspend, sb.Annotations)
		}
		if sb.Status.ActiveAttempt != nil || sb.Status.Phase == sbv1.PhaseRunning {
			t.Errorf("the slow step's bench still runs: %s %+v", sb.Status.Phase, sb.Status.ActiveAttempt)
		}
		if res := sb.Status.CellResults; len(res) == 0 || res[0].FailedAttempts != 1 {
			t.Errorf("the stopped attempt is not recorded as failed: %+v", res)
		}
		var pods corev1.PodList
		if err := k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{cellpod.LabelBench: sb.Name}); err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) != 0 {
			t.Errorf("the stopped attempt's pods are left: %d", len(pods.Items))
		}
	}
	if got := stepsOf(t, ns, "deadline"); got["sd-a/next"] != 1 {
		t.Errorf("the step after the deadline did not run once: %v", got)
	}
	if len(k.overlaps) > 0 {
		t.Errorf("the next step ran beside the stopped one: %v", k.overlaps)
	}
}

// External checks: a pod on the node whose termination message's JSON decides the step (here
// Failed with its reason and figures); an image off the manager's allow-list never runs and
// makes the step Invalid with the policy's words.
func TestFleetSuiteExternalCheck(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "sc-a", "check")
	f := suiteFleet("check", ns, "check", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		{Name: "diag", Check: &sbv1.ExternalCheck{Image: "spiralbench/dataplane:test", Command: []string{"/bin/diag"}}, OnFailure: sbv1.StepContinue},
		{Name: "foreign", Check: &sbv1.ExternalCheck{Image: "evil.example.com/miner:1"}, OnFailure: sbv1.StepContinue},
	}})
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	eventually(t, 30*time.Second, "the check pod", func() (bool, string) {
		var pods corev1.PodList
		_ = k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetStep: "diag"})
		if len(pods.Items) != 1 {
			return false, "no pod"
		}
		pod = pods.Items[0]
		return true, ""
	})
	if pod.Spec.NodeName != "sc-a" || pod.Spec.Containers[0].Command[0] != "/bin/diag" || pod.Spec.RestartPolicy != corev1.RestartPolicyNever ||
		pod.Spec.ActiveDeadlineSeconds == nil || *pod.Spec.ActiveDeadlineSeconds != 1800 {
		t.Fatalf("check pod %+v", pod.Spec)
	}
	pod.Status.Phase = corev1.PodSucceeded
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "check", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Message: `{"verdict":"Failed","reason":"dcgm level 1: PCIe replay errors","figures":{"CopyH2DMBps":21000}}`,
		StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
	if err := k8sClient.Status().Update(context.Background(), &pod); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	done := k.runUntil(30*time.Second, "check", "round 1 finished", roundFinished(1))
	row := rowOf(done, "sc-a")
	if row.Verdict != sbv1.NodeFailed || strings.Join(row.Reasons, ",") != "StepFailed:diag,StepInvalid:foreign" ||
		!strings.Contains(row.Reason, "PCIe replay errors") || !strings.Contains(row.Reason, "allow-list") {
		t.Fatalf("row %+v", row)
	}
	var pods corev1.PodList
	_ = k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetStep: "foreign"})
	if len(pods.Items) != 0 {
		t.Fatalf("a check off the allow-list ran: %v", pods.Items[0].Name)
	}
}

// Admission refuses suites that cannot run, each with what to change.
func TestFleetSuiteAdmission(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	cases := map[string]struct {
		mutate func(f *sbv1.SpiralBenchFleet)
		want   string
	}{
		"template and suite": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Template = sbtesting.MakeFleet("x", "x", "x").Obj().Spec.Template
		},
			"exactly one of spec.template"},
		"neither": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite = nil }, "exactly one of spec.template"},
		"repeated names": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps = append(f.Spec.Suite.Steps, tcpStep("a", 0, ""))
		}, "unique"},
		"pair without ring":  {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite.Steps[0].Placement = sbv1.StepOnPair }, "spec.pairing Ring"},
		"check and template": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite.Steps[0].Check = &sbv1.ExternalCheck{Image: "x"} }, "set exactly one"},
		"step placement": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps[0].Template.Spec.Topology.Placement = &sbv1.Placement{NodeName: "n"}
		}, "remove the step template's topology placements"},
		"gpus on tcp": {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite.Steps[0].UseAllGPUs = ptr.To(true) }, "useAllGPUs"},
		"bad name":    {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite.Steps[0].Name = "Not_A_Name" }, "spec.suite.steps[0].name"},
		"empty":       {func(f *sbv1.SpiralBenchFleet) { f.Spec.Suite.Steps = nil }, "builtin"},
		// A suite's steps get the template's rules on stragglers and baseline.
		"baseline on GPU steps": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps = []sbv1.SuiteStep{gpuStep("nccl", sbv1.TransportNCCL)}
			f.Spec.Baseline = &sbv1.HistoryBaselineSpec{Metric: "RxMbps"}
		}, "no step of this suite produces one"},
		"latency stragglers on a streaming suite": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Stragglers = &sbv1.StragglerSpec{Metric: "LatencyP50Nanoseconds"}
		}, "and no step of this suite does"},
		"latency baseline on a built-in suite": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite = &sbv1.SuiteSpec{Builtin: sbv1.SuiteStandard}
			f.Spec.Baseline = &sbv1.HistoryBaselineSpec{Metric: "LatencyP99Nanoseconds"}
		}, "and no step of this suite does"},
		"check image": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps = append(f.Spec.Suite.Steps, sbv1.SuiteStep{Name: "dcgm", Check: &sbv1.ExternalCheck{Image: "not an image!"}})
		}, "check.image is not an image reference"},
		"reserved step label": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps[0].Template.Labels = map[string]string{"spiralbench.io/fleet-step": "x"}
		}, "spiralbench.io/ labels are the operator's own"},
		"NCCL step without GPUs": {func(f *sbv1.SpiralBenchFleet) {
			f.Spec.Suite.Steps = []sbv1.SuiteStep{gpuStep("nccl", sbv1.TransportNCCL)}
			f.Spec.Suite.Steps[0].UseAllGPUs = nil
		}, "set the step's useAllGPUs: true"},
	}
	for name, c := range cases {
		f := suiteFleet("adm", ns, "adm", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{tcpStep("a", 0, "")}})
		c.mutate(f)
		err := k8sClient.Create(context.Background(), f)
		if err == nil {
			_ = k8sClient.Delete(context.Background(), f)
			t.Errorf("%s: admitted", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	ok := suiteFleet("adm", ns, "adm", &sbv1.SuiteSpec{Builtin: sbv1.SuiteStandard})
	ok.Spec.Stragglers = &sbv1.StragglerSpec{Metric: "RxMbps"} // from the built-in tcp step
	if err := k8sClient.Create(context.Background(), ok); err != nil {
		t.Fatalf("a built-in suite alone is refused: %v", err)
	}
	// useAllGPUs sets topology.server.gpus (docs/qualification.md): the template may leave it
	// out, and so do the built-in suites, whose steps are admissible as a fleet's own.
	gpus := suiteFleet("adm-gpus", ns, "adm", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		gpuStep("nccl", sbv1.TransportNCCL), gpuStep("copy", sbv1.TransportGPUCopy), tcpStep("tcp", 0, "")}})
	gpus.Spec.Stragglers = &sbv1.StragglerSpec{Metric: "TxMbps"}
	if err := k8sClient.Create(context.Background(), gpus); err != nil {
		t.Errorf("NCCL and GPUCopy steps with useAllGPUs and no gpus are refused: %v", err)
	}
	for i, name := range []sbv1.SuiteName{sbv1.SuiteQuick, sbv1.SuiteStandard, sbv1.SuiteExtended} {
		own := suiteFleet(fmt.Sprintf("adm-own-%d", i), ns, "adm", &sbv1.SuiteSpec{Steps: fleet.BuiltinSuite(name)})
		if err := k8sClient.Create(context.Background(), own); err != nil {
			t.Errorf("the %s suite's steps, as a fleet's own, are refused: %v", name, err)
		}
	}
	gate := suiteFleet("adm-gate", ns, "adm", &sbv1.SuiteSpec{Builtin: sbv1.SuiteQuick})
	gate.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Drivers: []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU, sbv1.UpgradeDriverOFED}}
	if err := k8sClient.Create(context.Background(), gate); err != nil {
		t.Fatalf("a suite gating driver upgrades is refused: %v", err)
	}
}

// Topology-aware pairing: with pairingDomain Within every Ring pair stays inside its rack
// label's domain; the admission rule asks for pairing Ring.
func TestFleetPairsInsideALabelDomain(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	racks := map[string]string{"pd-a1": "a", "pd-a2": "a", "pd-b1": "b", "pd-b2": "b"}
	for n, rack := range racks {
		node := poolNode(t, n, "domain")
		node.Labels["example.com/rack"] = rack
		if err := k8sClient.Update(context.Background(), node); err != nil {
			t.Fatal(err)
		}
	}
	f := sbtesting.MakeFleet("domain", ns, "domain").Ring().Obj()
	f.Spec.PairingDomain = &sbv1.PairingDomainSpec{Label: "example.com/rack"}
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	done := k.runUntil(60*time.Second, "domain", "round 1 finished", roundFinished(1))
	for n, rack := range racks {
		row := rowOf(done, n)
		if row.Verdict != sbv1.NodePassed || racks[row.Partner] != rack {
			t.Errorf("%s (rack %s): %+v", n, rack, row)
		}
	}
	bad := sbtesting.MakeFleet("nodomain", ns, "domain").Obj()
	bad.Spec.PairingDomain = &sbv1.PairingDomainSpec{Label: "example.com/rack"}
	if err := k8sClient.Create(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "set spec.pairing Ring") {
		t.Errorf("pairingDomain without Ring: %v", err)
	}
}
