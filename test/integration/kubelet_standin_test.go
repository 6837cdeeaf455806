package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// kubeletStandIn plays the kubelet's part, which envtest lacks: it moves a bench's pods to
// Running and Ready, then ends them with the termination message the data plane would
// write. This is a stand-in for the node, not for SpiralBench code; test/e2e runs the same
// flow on a real kubelet with the real data plane.
type kubeletStandIn struct {
	t     *testing.T
	ns    string
	bench string
	// fate decides how a pod of (cell, attempt, role) ends; nil ends it well.
	fate func(cell, attempt int, role string) *podFate
	// rxMbps is what a well-ended repeat reports.
	rxMbps func(cell, repeat int) int64
	// summary, when set, is the termination message of a well-ended pod instead of summaryJSON.
	summary func(cell, repeat int, role string) string
	// clientArgs are the data plane flags of the last client pod it ran.
	clientArgs []string
	// clientBeforeAddress counts clients created while their server's container did not run
	// and nothing was to tell them its address (no rendezvous key).
	clientBeforeAddress int
	// podIP is the IP a pod gets when it starts; "" is 10.244.0.7, "none" none at all (what no
	// kubelet does for a pod that ran on the pod network).
	podIP string
	// rankPods, when set, makes it run kinds whose pods are ranks (NCCL): each pod is set
	// Running and Ready, and once rankPods pods of an attempt run, all end together with
	// summary(cell, repeat, role). rankArgs keeps each role's data plane flags.
	rankPods     int
	rankArgs     map[string][]string
	rankPodSpecs map[string]corev1.Pod
	// networkStatus, when set, is the Multus network-status annotation a pod gets when it
	// starts (what Multus writes once its attachments are up); "" leaves the pod as it is.
	networkStatus func(p *corev1.Pod) string
	// imageID, when set, is the container's resolved image (containerStatuses imageID).
	imageID string
	// statuses, when set, adds these container statuses to a pod it ends beside the data
	// plane's: the environment relay's termination message (or a forged one).
	statuses func(p *corev1.Pod) []corev1.ContainerStatus
}

// podFate is how a pod ends.
type podFate struct {
	exitCode int32
	message  string
	hang     bool // never start it (unschedulable, image missing)
	delete   bool // delete it while it runs
	peerRuns bool // leave the client's server running (it waits for a connection that never comes)
}

func summaryJSON(role, state string, mbps int64) string {
	return echoedSummaryJSON(role, state, mbps, summary.Echo{Transport: "tcp", PayloadBytes: 8000, Pairs: 1})
}

// echoedSummaryJSON is a summary that echoes the cell e, as the data plane echoes the flags
// it ran with.
func echoedSummaryJSON(role, state string, mbps int64, e summary.Echo) string {
	return fmt.Sprintf(`{"v":1,"transport":%q,"role":%q,"state":%q,"reason":"","seconds_milli":1000,"payload_bytes":%d,`+
		`"pairs":%d,"target_mbps":%d,"tx_packets":%d,"tx_bytes":%d,"rx_packets":%d,"rx_bytes":%d,"pps":%d,"tx_mbps":%d,`+
		`"rx_mbps":%d,"drops":2,"drops_kind":"tcp-nstat-retrans+inerrs","loss_ppm":0,"cpu_master_mpct":1000,"cpu_tx_mpct":90000,`+
		`"cpu_rx_mpct":80000,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1}`,
		e.Transport, role, state, e.PayloadBytes, e.Pairs, e.TargetMbps, mbps*125, mbps*125000, mbps*125, mbps*125000, mbps*125, mbps, mbps)
}

// echoOf reads the cell a pod was given from its data plane flags, with the data plane's
// defaults (8000 B, one pair, unpaced).
func echoOf(args []string) summary.Echo {
	flag := func(name string, def int64) int64 {
		if v, err := strconv.ParseInt(argOf(args, name), 10, 64); err == nil {
			return v
		}
		return def
	}
	pairs := flag("--pairs", flag("--queue-pairs", 1))
	return summary.Echo{Transport: argOf(args, "--transport"), PayloadBytes: flag("--payload-bytes", 8000), Pairs: pairs,
		TargetMbps: flag("--target-mbps", 0)}
}

// step advances every pod of the bench once.
func (k *kubeletStandIn) step() {
	ctx := context.Background()
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(k.ns), client.MatchingLabels{cellpod.LabelBench: k.bench}); err != nil {
		k.t.Fatal(err)
	}
	byName := map[string]*corev1.Pod{}
	for i := range pods.Items {
		byName[pods.Items[i].Name] = &pods.Items[i]
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		cell, _ := strconv.Atoi(p.Labels[cellpod.LabelCell])
		attempt, _ := strconv.Atoi(p.Labels[cellpod.LabelAttempt])
		repeat, _ := strconv.Atoi(p.Labels[cellpod.LabelRepeat])
		role := p.Labels[cellpod.LabelRole]
		var f *podFate
		if k.fate != nil {
			f = k.fate(cell, attempt, role)
		}
		switch {
		case f != nil && f.hang:
			continue
		case f != nil && f.delete:
			_ = k8sClient.Delete(ctx, p)
			continue
		}
		if k.rankPods > 0 {
			k.stepRank(p, pods.Items, cell, attempt, repeat)
			continue
		}
		if role == cellpod.RoleServer {
			if f != nil && f.exitCode != 0 {
				k.end(p, f.exitCode, f.message) // refuses before it listens
			} else if p.Status.Phase == "" || p.Status.Phase == corev1.PodPending {
				k.setRunning(p)
			}
			continue // otherwise the server ends after its client
		}
		if role == cellpod.RoleClient {
			k.clientArgs = p.Spec.Containers[0].Args
			server := byName[cellpod.Name(k.bench, int32(cell), int32(attempt), cellpod.RoleServer)]
			if (server == nil || !isRunning(server)) && argOf(k.clientArgs, "--rendezvous-key") == "" {
				k.clientBeforeAddress++
			}
			if server != nil && (server.Status.Phase == "" || server.Status.Phase == corev1.PodPending) &&
				argOf(k.clientArgs, "--rendezvous-key") != "" {
				continue // it waits at the rendezvous until its server has started
			}
			// A pod of several repeats (--repeats) ends with a summary line per repeat.
			repeats, _ := strconv.Atoi(argOf(p.Spec.Containers[0].Args, "--repeats"))
			message := func(role string) string {
				var lines []string
				for r := repeat; r < repeat+max(repeats, 1); r++ {
					mbps := int64(1000)
					if k.rxMbps != nil {
						mbps = k.rxMbps(cell, r)
					}
					if k.summary != nil {
						lines = append(lines, k.summary(cell, r, role))
					} else {
						lines = append(lines, echoedSummaryJSON(role, "Valid", mbps, echoOf(p.Spec.Containers[0].Args)))
					}
				}
				return strings.Join(lines, "\n")
			}
			if f != nil {
				k.end(p, f.exitCode, f.message)
			} else {
				k.end(p, 0, message("client"))
			}
			if server != nil && (f == nil || !f.peerRuns) {
				k.end(server, 0, message("server"))
			}
		}
	}
}

// stepRank starts a rank pod, and ends every rank of its attempt once all of them run.
func (k *kubeletStandIn) stepRank(p *corev1.Pod, all []corev1.Pod, cell, attempt, repeat int) {
	if k.rankArgs == nil {
		k.rankArgs, k.rankPodSpecs = map[string][]string{}, map[string]corev1.Pod{}
	}
	k.rankArgs[p.Labels[cellpod.LabelRole]] = p.Spec.Containers[0].Args
	k.rankPodSpecs[p.Labels[cellpod.LabelRole]] = *p.DeepCopy()
	if p.Status.Phase == "" || p.Status.Phase == corev1.PodPending {
		k.setRunning(p)
		return
	}
	var running []*corev1.Pod
	for i := range all {
		q := &all[i]
		if q.Labels[cellpod.LabelCell] == strconv.Itoa(cell) && q.Labels[cellpod.LabelAttempt] == strconv.Itoa(attempt) &&
			q.DeletionTimestamp == nil && q.Status.Phase == corev1.PodRunning {
			running = append(running, q)
		}
	}
	if len(running) < k.rankPods {
		return
	}
	for _, q := range running {
		k.end(q, 0, k.summary(cell, repeat, q.Labels[cellpod.LabelRole]))
	}
}

func argOf(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func isRunning(p *corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return true
		}
	}
	return false
}

func (k *kubeletStandIn) setRunning(p *corev1.Pod) {
	if k.networkStatus != nil {
		if status := k.networkStatus(p); status != "" {
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations["k8s.v1.cni.cncf.io/network-status"] = status
			if err := k8sClient.Update(context.Background(), p); err != nil {
				k.t.Logf("stand-in: annotate %s: %v", p.Name, err)
				return
			}
		}
	}
	now := metav1.Now()
	p.Status.Phase = corev1.PodRunning
	if k.podIP != "none" {
		p.Status.PodIP = k.ip()
	}
	p.Status.StartTime = &now
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "dataplane", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
	if err := k8sClient.Status().Update(context.Background(), p); err != nil {
		k.t.Logf("stand-in: set %s running: %v", p.Name, err)
	}
}

// ip is the IP its pods get: a pod that ran has one in its status, even once it ended.
func (k *kubeletStandIn) ip() string {
	if k.podIP == "" {
		return "10.244.0.7"
	}
	return k.podIP
}

func (k *kubeletStandIn) end(p *corev1.Pod, exitCode int32, message string) {
	now := metav1.Now()
	if p.Status.PodIP == "" && k.podIP != "none" {
		p.Status.PodIP = k.ip()
	}
	p.Status.Phase = corev1.PodSucceeded
	if exitCode != 0 {
		p.Status.Phase = corev1.PodFailed
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: now}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "dataplane", ImageID: k.imageID, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Message: message, FinishedAt: now},
	}}}
	if k.statuses != nil {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, k.statuses(p)...)
	}
	if err := k8sClient.Status().Update(context.Background(), p); err != nil {
		k.t.Logf("stand-in: end %s: %v", p.Name, err)
	}
}

// runUntil steps the stand-in until the bench reaches one of the phases.
func (k *kubeletStandIn) runUntil(timeout time.Duration, phases ...sbv1.Phase) *sbv1.SpiralBench {
	k.t.Helper()
	sb := &sbv1.SpiralBench{}
	eventually(k.t, timeout, fmt.Sprintf("%s to reach %v", k.bench, phases), func() (bool, string) {
		k.step()
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: k.bench}, sb); err != nil {
			return false, err.Error()
		}
		for _, p := range phases {
			if sb.Status.Phase == p {
				return true, ""
			}
		}
		return false, fmt.Sprintf("phase %s progress %s active %+v conditions %+v", sb.Status.Phase, sb.Status.Progress, sb.Status.ActiveAttempt, sb.Status.Conditions)
	})
	// with each attempt's repeats, as reports and sbctl read them
	if err := attempts.Load(context.Background(), k8sClient, sb, attempts.Owned(sb)); err != nil {
		k.t.Fatal(err)
	}
	return sb
}

// testNode creates a Ready node that only benches tolerating its taint may use.
func testNode(t *testing.T, name string) {
	t.Helper()
	testNodeOffering(t, name, nil)
}

// gpuTestNode is a test node whose allocatable holds 8 GPUs and an RDMA shared device, for
// benches that ask for them: the controller leases no node that lacks what a bench's pods ask.
func gpuTestNode(t *testing.T, name string) {
	t.Helper()
	testNodeOffering(t, name, corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"),
		"rdma/rdma_shared_device_a": resource.MustParse("100")})
}

// testNodeOffering is a test node with this allocatable, as a kubelet and its device plugins
// would report it.
func testNodeOffering(t *testing.T, name string, allocatable corev1.ResourceList) {
	t.Helper()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"spiralbench.io/test-node": name}},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "spiralbench.io/test", Value: name, Effect: corev1.TaintEffectNoSchedule}}},
	}
	if err := k8sClient.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
	node.Status.NodeInfo.KernelVersion = "6.11.0-test"
	node.Status.Allocatable = allocatable
	if err := k8sClient.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	// The apiserver's TaintNodesByCondition admission taints a new node not-ready; the node
	// lifecycle controller, absent from envtest, would lift it once the node is Ready.
	var taints []corev1.Taint
	for _, tn := range node.Spec.Taints {
		if tn.Key != corev1.TaintNodeNotReady {
			taints = append(taints, tn)
		}
	}
	node.Spec.Taints = taints
	if err := k8sClient.Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
}

// onTestNode places a bench on a test node by selector and toleration.
func onTestNode(sb *sbv1.SpiralBench, node string) *sbv1.SpiralBench {
	sb.Spec.Topology.Placement = &sbv1.Placement{
		NodeSelector: map[string]string{"spiralbench.io/test-node": node},
		Tolerations:  []corev1.Toleration{{Key: "spiralbench.io/test", Operator: corev1.TolerationOpEqual, Value: node, Effect: corev1.TaintEffectNoSchedule}},
	}
	return sb
}
