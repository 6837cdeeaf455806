// Package cellpod builds the pods that run one attempt of one cell, one pod per rank of the
// bench's kind (pkg/benchkind). Pure: it turns the spec, the cell, the rank and the leased
// nodes into pod objects; the controller creates them. pod.go is the pod (placement, networks,
// resources, huge pages, security); args.go is the data plane's command line.
package cellpod

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// Roles of today's ranks (benchkind.ServerClient, benchkind.Loopback): their pod-name
// suffixes and spiralbench.io/role labels.
const (
	RoleServer   = benchkind.RoleServer
	RoleClient   = benchkind.RoleClient
	RoleLoopback = benchkind.RoleLoopback
)

// Labels and annotations on cell pods.
const (
	LabelBench    = "spiralbench.io/bench"
	LabelCell     = "spiralbench.io/cell"
	LabelRepeat   = "spiralbench.io/repeat"
	LabelAttempt  = "spiralbench.io/attempt"
	LabelRole     = "spiralbench.io/role"
	MultusNetwork = "k8s.v1.cni.cncf.io/networks"

	// BasePort is the first data port; the control connection uses BasePort-1.
	BasePort    = 5201
	readyDir    = "/run/spiral"
	readyFile   = readyDir + "/ready"
	summaryPath = "/dev/termination-log"
	envPodIP    = "SPIRAL_POD_IP"
	envPodUID   = "SPIRAL_POD_UID"
)

// StartupAllowanceSeconds is added to warm-up + measured seconds for the default cell
// deadline: image start, rank 0 readiness, connection set-up and rank 0's grace period.
const StartupAllowanceSeconds = 60

// Input is what a cell pod is made from.
type Input struct {
	Bench  *sbv1.SpiralBench
	Cell   plan.Cell
	Repeat int32 // the attempt's first repeat
	// Repeats the attempt runs back to back in these pods, from Repeat on; 0 means 1.
	Repeats int32
	Attempt int32
	// Nodes are the leased nodes, in benchkind.NodeSlots order; a rank runs on Nodes[rank.Node].
	Nodes []string
	// Kind is the bench's kind and Ranks its ranks for this spec (benchkind.Ranks).
	Kind  benchkind.Profile
	Ranks []benchkind.Rank
	// DefaultImage is used when the bench names none.
	DefaultImage string
	// PullPolicy of the data plane image; empty means IfNotPresent.
	PullPolicy corev1.PullPolicy
	// PeersFirst: rank 0's address was known before it ran, so the other ranks may start before
	// it listens (its image still pulling): they retry their connect for as long as the attempt
	// may last instead of 30 s.
	PeersFirst bool
	// Rendezvous is the manager's rendezvous (pkg/rendezvous), host:port; "" without one. Where
	// it applies (ViaRendezvous), rank 0 announces its address there once it listens, and the
	// other ranks start beside it and wait there, instead of after the kubelet reports its IP.
	Rendezvous string
	// RendezvousKey is rank 0's pod UID, the key the other ranks wait on; set once rank 0 exists.
	RendezvousKey string
}

// ViaRendezvous: rank 0 has peers and runs on the pod network with nothing that fixes its
// address in advance (no address, host network, secondary network or several links), and the
// manager runs a rendezvous.
func (in Input) ViaRendezvous() bool {
	if in.Rendezvous == "" || len(in.Ranks) < 2 {
		return false
	}
	side := in.Ranks[0].Sides[0].Spec(&in.Bench.Spec)
	return side.Address == "" && !side.HostNetwork && len(side.Networks) == 0 && in.Bench.Spec.Topology.Links <= 1
}

// Name is the deterministic pod name of a rank (by its name): a restarted controller finds its pods by it.
func Name(bench string, cell, attempt int32, role string) string {
	return fmt.Sprintf("%s-c%d-a%d-%s", bench, cell, attempt, role)
}

// DeadlineSeconds bounds an attempt of one repeat, pod start included.
func DeadlineSeconds(run sbv1.RunSpec) int64 {
	return AttemptDeadlineSeconds(run, 1)
}

// AttemptDeadlineSeconds bounds an attempt that runs `repeats` repeats in one set of pods:
// cellDeadlineSeconds per repeat when set, else each repeat's warm-up and window (and a rate
// search's trials) plus one start-up allowance.
func AttemptDeadlineSeconds(run sbv1.RunSpec, repeats int32) int64 {
	n := int64(max(repeats, 1))
	if run.CellDeadlineSeconds != nil {
		return n * int64(*run.CellDeadlineSeconds)
	}
	return n*(int64(ptr.Deref(run.WarmupSeconds, 0))+int64(run.Seconds)+searchSeconds(run)) + StartupAllowanceSeconds
}

// Deadline bounds this attempt (AttemptDeadlineSeconds).
func (in Input) Deadline() int64 { return AttemptDeadlineSeconds(in.Bench.Spec.Run, in.Repeats) }

// NewInput looks up the bench's kind and ranks; it fails only for a transport no kind has.
func NewInput(sb *sbv1.SpiralBench, cell plan.Cell, repeat, repeats, attempt int32, nodes []string) (Input, error) {
	kind, err := benchkind.For(&sb.Spec)
	if err != nil {
		return Input{}, err
	}
	ranks, _ := benchkind.Ranks(&sb.Spec)
	return Input{Bench: sb, Cell: cell, Repeat: repeat, Repeats: repeats, Attempt: attempt, Nodes: nodes, Kind: kind, Ranks: ranks}, nil
}

// Build returns the pod of a rank. rendezvous is rank 0's address, where the other ranks
// connect; rank 0 itself is built with "".
func Build(in Input, rank benchkind.Rank, rendezvous string) *corev1.Pod {
	sb := in.Bench
	role := rank.Name
	primary := rank.Sides[0].Spec(&sb.Spec)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      Name(sb.Name, in.Cell.Index, in.Attempt, role),
			Namespace: sb.Namespace,
			Labels: map[string]string{
				"app.kubernetes.io/name":      "spiralbench",
				"app.kubernetes.io/component": "cell",
				LabelBench:                    sb.Name,
				LabelCell:                     strconv.Itoa(int(in.Cell.Index)),
				LabelRepeat:                   strconv.Itoa(int(in.Repeat)),
				LabelAttempt:                  strconv.Itoa(int(in.Attempt)),
				LabelRole:                     role,
			},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr.To(false),
			ActiveDeadlineSeconds:         ptr.To(in.Deadline()),
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			PriorityClassName:             sb.Spec.PriorityClassName,
			ImagePullSecrets:              sb.Spec.ImagePullSecrets,
			HostNetwork:                   primary.HostNetwork,
			Volumes: []corev1.Volume{{
				Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}},
			}},
		},
	}
	if primary.HostNetwork {
		pod.Spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	placeOn(pod, benchkind.NodeSlots(&sb.Spec)[rank.Node], nodeOf(in.Nodes, rank))
	if nets := networks(sb, rank); len(nets) > 0 {
		b, _ := json.Marshal(nets)
		pod.Annotations = map[string]string{MultusNetwork: string(b)}
	}
	image := sb.Spec.Image
	if image == "" {
		image = in.DefaultImage
	}
	c := corev1.Container{
		Name:                     DataplaneContainer,
		Image:                    image,
		ImagePullPolicy:          pullPolicy(in.PullPolicy),
		Command:                  []string{"spiral-dataplane"},
		Args:                     Args(in, rank, rendezvous),
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		VolumeMounts:             []corev1.VolumeMount{{Name: "run", MountPath: readyDir}},
		SecurityContext:          securityContext(sb, rank),
		Resources:                resources(sb, rank),
	}
	if rank.Index == 0 {
		// Rank 0 is Ready once it listens, for whoever looks at the pod; the other ranks do not wait
		// for it: they retry their connect until rank 0 listens.
		c.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", readyFile}}},
			PeriodSeconds: 1, FailureThreshold: 1,
		}
	}
	if rank.Index == 0 && in.ViaRendezvous() {
		// What rank 0 announces (rendezvousArgs): its pod's IP and UID, from the kubelet at its start.
		c.Env = append(c.Env,
			corev1.EnvVar{Name: envPodIP, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			corev1.EnvVar{Name: envPodUID, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}})
	}
	addHugepages(pod, &c, sb, rank)
	pod.Spec.Containers = []corev1.Container{c}
	if rank.Index == 0 {
		relayEnvironment(pod, c, sb)
	}
	return pod
}

// nodeOf is the leased node of a rank; "" before any node is leased.
func nodeOf(nodes []string, rank benchkind.Rank) string {
	if rank.Node < len(nodes) {
		return nodes[rank.Node]
	}
	return ""
}

// sides returns the topology sides a rank takes, its primary side first.
func sides(sb *sbv1.SpiralBench, rank benchkind.Rank) []sbv1.SideSpec {
	out := make([]sbv1.SideSpec, len(rank.Sides))
	for i, s := range rank.Sides {
		out[i] = s.Spec(&sb.Spec)
	}
	return out
}

// placeOn applies the user's placement and pins the pod to the leased node through a
// required node-affinity term, so the scheduler still accounts for GPUs and hugepages.
func placeOn(pod *corev1.Pod, p *sbv1.Placement, node string) {
	if p != nil {
		pod.Spec.Tolerations = p.Tolerations
		if len(p.NodeSelector) > 0 {
			pod.Spec.NodeSelector = map[string]string{}
			for k, v := range p.NodeSelector {
				pod.Spec.NodeSelector[k] = v
			}
		}
		if p.Affinity != nil {
			pod.Spec.Affinity = p.Affinity.DeepCopy()
		}
	}
	if node == "" {
		return
	}
	pin := corev1.NodeSelectorRequirement{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &corev1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	req := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if req == nil || len(req.NodeSelectorTerms) == 0 {
		req = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	for i := range req.NodeSelectorTerms { // terms are ORed: pin every one
		req.NodeSelectorTerms[i].MatchFields = append(req.NodeSelectorTerms[i].MatchFields, pin)
	}
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = req
}

type multusNetwork struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Interface string `json:"interface,omitempty"`
}

func networks(sb *sbv1.SpiralBench, rank benchkind.Rank) []multusNetwork {
	var out []multusNetwork
	for _, s := range sides(sb, rank) {
		for _, n := range s.Networks {
			out = append(out, multusNetwork{Name: n.Name, Namespace: n.Namespace, Interface: n.Interface})
		}
	}
	return out
}

func securityContext(sb *sbv1.SpiralBench, rank benchkind.Rank) *corev1.SecurityContext {
	privileged := false
	for _, s := range sides(sb, rank) {
		privileged = privileged || s.Privileged
	}
	sc := &corev1.SecurityContext{Capabilities: &corev1.Capabilities{
		// Pinned memory (IPC_LOCK), raw sockets and DPDK (NET_RAW, NET_ADMIN), core pinning and
		// real-time priorities (SYS_NICE); nothing more unless the spec asks for privileged.
		Add: []corev1.Capability{"IPC_LOCK", "NET_RAW", "NET_ADMIN", "SYS_NICE"},
	}}
	if privileged {
		sc.Privileged = ptr.To(true)
	}
	return sc
}

// resources sums the devices and GPUs of every side the rank takes.
func resources(sb *sbv1.SpiralBench, rank benchkind.Rank) corev1.ResourceRequirements {
	limits := corev1.ResourceList{}
	for _, s := range sides(sb, rank) {
		for _, d := range s.Devices {
			name := corev1.ResourceName(d.ResourceName)
			q := limits[name]
			q.Add(*resource.NewQuantity(int64(max(d.Count, 1)), resource.DecimalSI))
			limits[name] = q
		}
		if s.GPUs > 0 {
			q := limits["nvidia.com/gpu"]
			q.Add(*resource.NewQuantity(int64(s.GPUs), resource.DecimalSI))
			limits["nvidia.com/gpu"] = q
		}
	}
	if len(limits) == 0 {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Limits: limits, Requests: limits.DeepCopy()}
}

// Requests is what a rank's pod asks of its node, as Build sets it: its devices, GPUs, huge
// pages and the memory they need. The controller checks it against the nodes before leasing
// one, so a bench no node can run says so instead of waiting with an unschedulable pod.
func Requests(sb *sbv1.SpiralBench, rank benchkind.Rank) corev1.ResourceList {
	c := corev1.Container{Resources: resources(sb, rank)}
	addHugepages(&corev1.Pod{}, &c, sb, rank)
	return c.Resources.Requests
}

// addHugepages requests the huge pages of the rank's first side that asks for them and
// mounts them where DPDK looks.
func addHugepages(pod *corev1.Pod, c *corev1.Container, sb *sbv1.SpiralBench, rank benchkind.Rank) {
	var hp *sbv1.HugepagesSpec
	for _, s := range sides(sb, rank) {
		if hp == nil {
			hp = s.Hugepages
		}
	}
	if hp == nil {
		return
	}
	size := hp.PageSize
	if size == "" {
		size = "2Mi"
	}
	name := corev1.ResourceName("hugepages-" + string(size))
	q := resource.MustParse(fmt.Sprintf("%dMi", hp.Mebibytes))
	if c.Resources.Limits == nil {
		c.Resources.Limits, c.Resources.Requests = corev1.ResourceList{}, corev1.ResourceList{}
	}
	// The apiserver refuses huge pages without a memory or CPU request.
	mem := resource.MustParse("1Gi")
	c.Resources.Limits[name], c.Resources.Requests[name] = q, q
	c.Resources.Limits[corev1.ResourceMemory], c.Resources.Requests[corev1.ResourceMemory] = mem, mem
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "hugepages", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium("HugePages-" + string(size))},
	}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "hugepages", MountPath: "/dev/hugepages"})
}
