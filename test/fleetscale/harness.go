// Package fleetscale is the fleet scale benchmark: a SpiralBenchFleet over many simulated
// GPU nodes. The apiserver and etcd are real (envtest's binaries); the kubelet is FAKE: KWOK
// (sigs.k8s.io/kwok v0.8.0) drives pods Ready and ends them with data plane summaries
// (kwok-stages.yaml). The manager is the real binary, killed (SIGKILL) and restarted midway.
// hack/bench/fleet-scale.sh runs it at 1,000 nodes; fleetscale_test.go at 50 in `make test`.
package fleetscale

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

//go:embed kwok-stages.yaml
var kwokStages []byte

// Options of one run.
type Options struct {
	Nodes, MaxParallel int
	// RestartAt kills and restarts the manager when this share of the nodes has a verdict (0: never).
	RestartAt float64
	// RestartAfter, when set, kills and restarts it after this long if RestartAt was not
	// reached first (a run that stops at its timeout still crosses a restart).
	RestartAfter time.Duration
	// KwokBin, SchedulerBin and ManagerBin are the binaries; Assets is KUBEBUILDER_ASSETS
	// (kube-apiserver, etcd); CRDDir the CRDs.
	KwokBin, SchedulerBin, ManagerBin, Assets, CRDDir string
	// WorkDir holds the kubeconfig and the logs.
	WorkDir string
	Timeout time.Duration
	Log     io.Writer
	// ManagerGoMemLimit, when set, is the manager's GOMEMLIMIT: what it derives from a
	// container memory limit (90 % of it) in a cluster; here it runs as a plain process.
	ManagerGoMemLimit string
	// ManagerGoDebug, when set, is the manager's GODEBUG (gctrace=1 writes each collection to
	// its log, manager-N.log in the work directory).
	ManagerGoDebug string
	// CPUProfile, when set, is where a CPU profile of the restarted manager's first
	// ProfileSeconds (default 30) goes (its /debug/pprof endpoint), to see where its time goes.
	CPUProfile     string
	ProfileSeconds int
	// HeapProfile, when set, is where the manager's live heap goes when the run ends.
	HeapProfile string
	// DumpObjects, when set, is a directory the round's cached kinds go to when the run ends,
	// one JSON list each (benches, attempt results, node results, nodes): hack/cachesizes says
	// what each object costs in the manager's cache.
	DumpObjects string
	// SuiteSteps > 0 benches each node with a suite of that many TCP steps (s1, s2, ...)
	// instead of one template bench.
	SuiteSteps int
	// Stop, when closed, ends the run as the timeout does (measured, every process stopped).
	Stop <-chan struct{}
	// Suite names a built-in suite (Quick) to bench each node with instead; the KWOK stages
	// end its GPU copy and NCCL pods with summaries of their kinds.
	Suite sbv1.SuiteName
}

// Result of one run.
type Result struct {
	Nodes      int
	Wall       time.Duration
	Reconciles map[string]float64 // by controller, over both manager lives
	// ReconcileSeconds is the time spent reconciling, by controller, over both lives.
	ReconcileSeconds map[string]float64
	APIRequests      float64
	CPUSeconds       float64 // user + system, both lives
	PeakRSSBytes     int64   // the larger life's peak
	// PeakAnonBytes and FileAtPeakBytes are that life's largest anonymous RSS (sampled every
	// 2 s) and its file-backed RSS then: what the peak is made of.
	PeakAnonBytes, FileAtPeakBytes int64
	LargestFleetJSON               int // bytes of the fleet object as the apiserver returns it
	LargestBenchJSON               int
	// LargestBench is that bench's JSON, to see what a bench of the round holds.
	LargestBench []byte
	// LargestResultJSON is the largest SpiralBenchNodeResult of the round.
	LargestResultJSON int
	Verdicts          map[string]int
	// Reasons counts the reason codes of the Failed and Invalid nodes.
	Reasons        map[string]int
	Lost, Repeated int
	Overlaps       int
	Attempts       int // cell attempts over all benches (> nodes when pods were retried)
	Restarted      bool
	// FinishedAtRestart is how many benches had finished when the manager was killed: a
	// restarted manager that reconciled each of them again adds as many bench reconciles.
	FinishedAtRestart int
	// Completed: the round finished; otherwise the run stopped at the timeout and the figures
	// are per node decided by then (Decided).
	Completed bool
	Decided   int
	// ManagerRequests counts the manager's API requests by verb and resource, from the
	// apiserver's audit log.
	ManagerRequests map[string]int
	Problems        []string
	// ProcessCPU is the CPU seconds (user + system) of each process of the simulation: the
	// apiserver, etcd, the scheduler, KWOK, and the harness itself; the manager is CPUSeconds.
	ProcessCPU map[string]float64
}

const (
	namespace = "fleet-scale"
	leaseNS   = "spiralbench-system"
	fleetName = "scale"
)

// Run runs the benchmark once.
func Run(ctx context.Context, o Options) (*Result, error) {
	say := func(format string, args ...any) { fmt.Fprintf(o.Log, "fleet-scale: "+format+"\n", args...) }
	logf.SetLogger(logr.Discard())
	env := &envtest.Environment{CRDDirectoryPaths: []string{o.CRDDir}, ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: o.Assets}
	audit, err := configureAudit(env, o.WorkDir)
	if err != nil {
		return nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest: %w", err)
	}
	defer func() { _ = env.Stop() }()
	admin, err := env.AddUser(envtest.User{Name: "fleet-scale", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, err
	}
	// The manager has a user of its own, so the audit log tells its requests from the others'.
	managerUser, err := env.AddUser(envtest.User{Name: auditUser, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	managerKubeconfig, err := managerUser.KubeConfig()
	if err != nil {
		return nil, err
	}
	mkc := filepath.Join(o.WorkDir, "manager.kubeconfig")
	if err := os.WriteFile(mkc, managerKubeconfig, 0o600); err != nil {
		return nil, err
	}
	kc := filepath.Join(o.WorkDir, "kubeconfig")
	stages := filepath.Join(o.WorkDir, "kwok-stages.yaml")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stages, kwokStages, 0o600); err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sbv1.AddToScheme(scheme))
	cfg.QPS, cfg.Burst = 500, 1000
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	for _, ns := range []string{namespace, leaseNS} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	if err := createNodes(ctx, c, o.Nodes); err != nil {
		return nil, err
	}
	say("created %d nodes in %s", o.Nodes, time.Since(t0).Round(time.Millisecond))

	kwok := exec.CommandContext(ctx, o.KwokBin, "--kubeconfig", kc, "--config", stages)
	kwokLog, err := os.Create(filepath.Join(o.WorkDir, "kwok.log"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = kwokLog.Close() }()
	kwok.Stdout, kwok.Stderr = kwokLog, kwokLog
	if err := kwok.Start(); err != nil {
		return nil, fmt.Errorf("start kwok: %w", err)
	}
	kwokDone := make(chan error, 1)
	go func() { kwokDone <- kwok.Wait() }()
	defer func() {
		_ = kwok.Process.Signal(syscall.SIGTERM)
		<-kwokDone
	}()
	if err := waitNodesReady(ctx, c, o.Nodes, 5*time.Minute, kwokDone); err != nil {
		return nil, err
	}
	say("kwok (fake kubelet) made %d nodes Ready after %s", o.Nodes, time.Since(t0).Round(time.Millisecond))
	if err := liftNotReadyTaints(ctx, c); err != nil {
		return nil, err
	}
	sched := exec.CommandContext(ctx, o.SchedulerBin, "--kubeconfig", kc, "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
		"--leader-elect=false", "--bind-address", "127.0.0.1", "--secure-port", "0")
	schedLog, err := os.Create(filepath.Join(o.WorkDir, "kube-scheduler.log"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = schedLog.Close() }()
	sched.Stdout, sched.Stderr = schedLog, schedLog
	if err := sched.Start(); err != nil {
		return nil, fmt.Errorf("start kube-scheduler: %w", err)
	}
	defer func() { _ = sched.Process.Signal(syscall.SIGTERM); _ = sched.Wait() }()

	rec := newPodRecorder()
	stopWatch, err := rec.watch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stopWatch()

	res := &Result{Nodes: o.Nodes, Reconciles: map[string]float64{}, Verdicts: map[string]int{}, Reasons: map[string]int{}}
	startCPU := childrenCPU(nil) // the nodes' creation is not the fleet's
	m, err := startManager(ctx, o, mkc, 1)
	if err != nil {
		return nil, err
	}
	f := fleet(o)
	start := time.Now()
	if err := c.Create(ctx, f); err != nil {
		m.stop(false)
		return nil, err
	}
	deadline := time.Now().Add(o.Timeout)
	restarted := o.RestartAt <= 0
	var cur sbv1.SpiralBenchFleet
	for {
		stopped := false
		select {
		case <-o.Stop:
			stopped = true
		default:
		}
		if time.Now().After(deadline) || stopped {
			// Stopped before the round ended: the figures are per node decided so far.
			say("stopped after %s (the timeout, or a signal): %s progress %s counts %+v", o.Timeout, cur.Status.Phase, cur.Status.Progress, cur.Status.Counts)
			break
		}
		time.Sleep(time.Second)
		if err := c.Get(ctx, client.ObjectKeyFromObject(f), &cur); err != nil {
			continue
		}
		if data, err := json.Marshal(&cur); err == nil && len(data) > res.LargestFleetJSON {
			res.LargestFleetJSON = len(data)
		}
		decided := int(cur.Status.Counts.Passed + cur.Status.Counts.Failed + cur.Status.Counts.Invalid)
		if !restarted && (float64(decided) >= o.RestartAt*float64(o.Nodes) || o.RestartAfter > 0 && time.Since(start) >= o.RestartAfter) {
			say("killing the manager (SIGKILL) at %d/%d verdicts, %s in", decided, o.Nodes, time.Since(start).Round(time.Second))
			m.stop(true)
			m.account(res)
			if m, err = startManager(ctx, o, mkc, 2); err != nil {
				return res, err
			}
			if o.CPUProfile != "" {
				go m.profile(ctx, o.CPUProfile, o.ProfileSeconds, say)
			}
			restarted, res.Restarted = true, true
			res.FinishedAtRestart = finishedBenches(ctx, c)
		}
		if cur.Status.RoundCompletionTime != nil && cur.Status.Round >= 1 {
			res.Completed = true
			break
		}
	}
	res.Wall = time.Since(start)
	say("round finished: %v, after %s: %s", res.Completed, res.Wall.Round(time.Second), cur.Status.Progress)
	if o.HeapProfile != "" {
		m.heapProfile(ctx, o.HeapProfile, say)
	}
	m.stop(false)
	m.account(res)
	res.ProcessCPU = childrenCPU(startCPU)
	if err := check(ctx, c, &cur, rec, res); err != nil {
		return res, err
	}
	if o.DumpObjects != "" {
		if err := dumpObjects(ctx, c, o.DumpObjects); err != nil {
			return res, err
		}
	}
	res.ManagerRequests = audit.tally()
	if !res.Completed {
		return res, fmt.Errorf("the round did not finish within %s (%d of %d nodes decided): %s", o.Timeout, res.Decided, o.Nodes, diagnose(ctx, c))
	}
	return res, nil
}

func fleet(o Options) *sbv1.SpiralBenchFleet {
	f := &sbv1.SpiralBenchFleet{
		ObjectMeta: metav1.ObjectMeta{Name: fleetName, Namespace: namespace},
		Spec: sbv1.SpiralBenchFleetSpec{
			NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "kwok-gpu"}},
			Template: &sbv1.FleetBenchTemplate{Spec: sbv1.SpiralBenchSpec{
				Transport: sbv1.TransportTCP,
				Matrix:    sbv1.MatrixSpec{PayloadBytes: []int32{8000}, Pairs: []int32{1}},
				Run:       sbv1.RunSpec{Seconds: 1, WarmupSeconds: ptr.To[int32](0), Repeats: 1, RetriesPerCell: ptr.To[int32](2)},
				Acceptance: &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{{Name: "line-rate", Metric: sbv1.MetricRxMbps,
					Operator: sbv1.OperatorGreaterThanOrEqual, Value: 90000}}},
			}},
			MaxParallel:   int32(o.MaxParallel),
			OnlyIdleNodes: ptr.To(true),
			Verdicts:      &sbv1.FleetVerdictSpec{Labels: true},
			Stragglers:    &sbv1.StragglerSpec{Metric: "RxMbps", KMilli: 3000, MinNodes: 5},
		},
	}
	if o.Suite != "" {
		f.Spec.Template, f.Spec.Suite = nil, &sbv1.SuiteSpec{Builtin: o.Suite}
	}
	if o.SuiteSteps > 0 {
		suite := &sbv1.SuiteSpec{}
		for i := 1; i <= o.SuiteSteps; i++ {
			suite.Steps = append(suite.Steps, sbv1.SuiteStep{Name: fmt.Sprintf("s%d", i), Template: f.Spec.Template.DeepCopy(), OnFailure: sbv1.StepContinue})
		}
		f.Spec.Template, f.Spec.Suite = nil, suite
	}
	return f
}

func nodeName(i int) string { return fmt.Sprintf("kwok-gpu-%04d", i) }

func createNodes(ctx context.Context, c client.Client, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	work := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
					Name:        nodeName(i),
					Labels:      map[string]string{"pool": "kwok-gpu", "type": "kwok", "nvidia.com/gpu.product": "NVIDIA-GB10"},
					Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
				}}
				if err := c.Create(ctx, node); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

func waitNodesReady(ctx context.Context, c client.Client, n int, timeout time.Duration, kwokDone chan error) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-kwokDone:
			kwokDone <- err
			return fmt.Errorf("kwok exited: %v (see kwok.log)", err)
		default:
		}
		var list corev1.NodeList
		if err := c.List(ctx, &list); err == nil {
			ready := 0
			for _, node := range list.Items {
				for _, cond := range node.Status.Conditions {
					if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
						ready++
					}
				}
			}
			if ready >= n {
				return nil
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("kwok did not make %d nodes Ready within %s", n, timeout)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// finishedBenches counts the round's finished benches (-1 when the list fails).
func finishedBenches(ctx context.Context, c client.Client) int {
	var benches sbv1.SpiralBenchList
	if err := c.List(ctx, &benches, client.InNamespace(namespace)); err != nil {
		return -1
	}
	n := 0
	for i := range benches.Items {
		if p := benches.Items[i].Status.Phase; p == sbv1.PhaseCompleted || p == sbv1.PhaseFailed {
			n++
		}
	}
	return n
}

// diagnose says where benches and pods stand, for a run that did not finish.
func diagnose(ctx context.Context, c client.Client) string {
	var b strings.Builder
	var benches sbv1.SpiralBenchList
	_ = c.List(ctx, &benches, client.InNamespace(namespace))
	for i, sb := range benches.Items {
		if i >= 3 {
			break
		}
		fmt.Fprintf(&b, "bench %s phase %s active %+v conditions %+v; ", sb.Name, sb.Status.Phase, sb.Status.ActiveAttempt, sb.Status.Conditions)
	}
	var pods corev1.PodList
	_ = c.List(ctx, &pods, client.InNamespace(namespace))
	for i, p := range pods.Items {
		if i >= 4 {
			break
		}
		fmt.Fprintf(&b, "pod %s node %s phase %s conditions %+v statuses %+v; ", p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.Conditions, p.Status.ContainerStatuses)
	}
	return b.String()
}

// liftNotReadyTaints does the node lifecycle controller's part (kube-controller-manager, not
// run here): the apiserver tainted each new node not-ready, and kwok has made them Ready.
func liftNotReadyTaints(ctx context.Context, c client.Client) error {
	var list corev1.NodeList
	if err := c.List(ctx, &list); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(list.Items))
	sem := make(chan struct{}, 16)
	for i := range list.Items {
		n := &list.Items[i]
		var kept []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				kept = append(kept, t)
			}
		}
		if len(kept) == len(n.Spec.Taints) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			patch := client.MergeFrom(n.DeepCopy())
			n.Spec.Taints = kept
			if err := c.Patch(ctx, n, patch); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
