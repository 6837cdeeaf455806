// Package cellpod builds the pods that run one attempt of one cell. Pure: it turns the spec,
// the cell and the leased node into pod objects; the controller creates them.
package cellpod

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// Roles of a cell pod.
const (
	RoleServer   = "server"
	RoleClient   = "client"
	RoleLoopback = "loopback"
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
)

// StartupAllowanceSeconds is added to warm-up + measured seconds for the default cell
// deadline: image start, server readiness, connection set-up and the server's grace period.
const StartupAllowanceSeconds = 60

// Input is what a cell pod is made from.
type Input struct {
	Bench   *sbv1.SpiralBench
	Cell    plan.Cell
	Repeat  int32
	Attempt int32
	// Nodes are the leased nodes: one for Loopback, server then client for CrossNode.
	Nodes []string
	// DefaultImage is used when the bench names none.
	DefaultImage string
	// PullPolicy of the data plane image; empty means IfNotPresent.
	PullPolicy corev1.PullPolicy
}

// Name is the deterministic pod name of a role: a restarted controller finds its pods by it.
func Name(bench string, cell, attempt int32, role string) string {
	return fmt.Sprintf("%s-c%d-a%d-%s", bench, cell, attempt, role)
}

// DeadlineSeconds bounds one attempt, pod start included.
func DeadlineSeconds(run sbv1.RunSpec) int64 {
	if run.CellDeadlineSeconds != nil {
		return int64(*run.CellDeadlineSeconds)
	}
	return int64(ptr.Deref(run.WarmupSeconds, 0)) + int64(run.Seconds) + StartupAllowanceSeconds
}

// Roles returns the pod roles a transport needs, the receiver first.
func Roles(t sbv1.Transport) []string {
	if t == sbv1.TransportRawEthernet {
		return []string{RoleLoopback}
	}
	return []string{RoleServer, RoleClient}
}

// Build returns the pod of a role. serverAddress is where a client connects.
func Build(in Input, role, serverAddress string) *corev1.Pod {
	sb := in.Bench
	side, node := sideFor(sb, role, in.Nodes)
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
			ActiveDeadlineSeconds:         ptr.To(DeadlineSeconds(sb.Spec.Run)),
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			PriorityClassName:             sb.Spec.PriorityClassName,
			ImagePullSecrets:              sb.Spec.ImagePullSecrets,
			HostNetwork:                   side.HostNetwork,
			Volumes: []corev1.Volume{{
				Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}},
			}},
		},
	}
	if side.HostNetwork {
		pod.Spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	placeOn(pod, placementFor(sb, side), node)
	if nets := networks(sb, role); len(nets) > 0 {
		b, _ := json.Marshal(nets)
		pod.Annotations = map[string]string{MultusNetwork: string(b)}
	}
	image := sb.Spec.Image
	if image == "" {
		image = in.DefaultImage
	}
	c := corev1.Container{
		Name:                     "dataplane",
		Image:                    image,
		ImagePullPolicy:          pullPolicy(in.PullPolicy),
		Command:                  []string{"spiral-dataplane"},
		Args:                     Args(in, role, serverAddress),
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		VolumeMounts:             []corev1.VolumeMount{{Name: "run", MountPath: readyDir}},
		SecurityContext:          securityContext(sb, role),
		Resources:                resources(sb, role),
	}
	if role != RoleClient {
		// The server is Ready once it listens: the barrier the client waits behind.
		c.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", readyFile}}},
			PeriodSeconds: 1, FailureThreshold: 1,
		}
	}
	addHugepages(pod, &c, sb, role)
	pod.Spec.Containers = []corev1.Container{c}
	return pod
}

// sideFor returns the spec side a role describes and its node.
func sideFor(sb *sbv1.SpiralBench, role string, nodes []string) (sbv1.SideSpec, string) {
	node := ""
	if len(nodes) > 0 {
		node = nodes[0]
	}
	if role == RoleClient {
		if len(nodes) > 1 {
			node = nodes[1]
		}
		return sb.Spec.Topology.Client, node
	}
	return sb.Spec.Topology.Server, node
}

func placementFor(sb *sbv1.SpiralBench, side sbv1.SideSpec) *sbv1.Placement {
	if sb.Spec.Topology.Mode == sbv1.TopologyCrossNode {
		return side.Placement
	}
	return sb.Spec.Topology.Placement
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

func networks(sb *sbv1.SpiralBench, role string) []multusNetwork {
	sides := []sbv1.SideSpec{sb.Spec.Topology.Server}
	switch role {
	case RoleClient:
		sides = []sbv1.SideSpec{sb.Spec.Topology.Client}
	case RoleLoopback:
		sides = append(sides, sb.Spec.Topology.Client)
	}
	var out []multusNetwork
	for _, s := range sides {
		for _, n := range s.Networks {
			out = append(out, multusNetwork{Name: n.Name, Namespace: n.Namespace, Interface: n.Interface})
		}
	}
	return out
}

func securityContext(sb *sbv1.SpiralBench, role string) *corev1.SecurityContext {
	privileged := sb.Spec.Topology.Server.Privileged
	if role == RoleClient {
		privileged = sb.Spec.Topology.Client.Privileged
	} else if role == RoleLoopback {
		privileged = privileged || sb.Spec.Topology.Client.Privileged
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

func resources(sb *sbv1.SpiralBench, role string) corev1.ResourceRequirements {
	limits := corev1.ResourceList{}
	add := func(s sbv1.SideSpec) {
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
	switch role {
	case RoleServer:
		add(sb.Spec.Topology.Server)
	case RoleClient:
		add(sb.Spec.Topology.Client)
	default:
		add(sb.Spec.Topology.Server)
		add(sb.Spec.Topology.Client)
	}
	if len(limits) == 0 {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Limits: limits, Requests: limits.DeepCopy()}
}

// addHugepages requests the side's huge pages and mounts them where DPDK looks.
func addHugepages(pod *corev1.Pod, c *corev1.Container, sb *sbv1.SpiralBench, role string) {
	var hp *sbv1.HugepagesSpec
	if role == RoleClient {
		hp = sb.Spec.Topology.Client.Hugepages
	} else {
		hp = sb.Spec.Topology.Server.Hugepages
		if hp == nil && role == RoleLoopback {
			hp = sb.Spec.Topology.Client.Hugepages
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

// Args renders the cell as spiral-dataplane flags (docs/dataplane.md), visible in
// `kubectl describe pod`.
func Args(in Input, role, serverAddress string) []string {
	sb, p := in.Bench, in.Cell.CellParameters
	run := sb.Spec.Run
	a := []string{role,
		"--transport", transportFlag(sb.Spec.Transport),
		"--payload-bytes", itoa(p.PayloadBytes),
		"--seconds", itoa(run.Seconds),
		"--warmup-seconds", itoa(ptr.Deref(run.WarmupSeconds, 0)),
		"--base-port", itoa(BasePort),
		"--summary-file", summaryPath,
		"--workload", p.Workload.DataplaneName(),
		"--label", "bench=" + sb.Namespace + "/" + sb.Name,
		"--label", "cell=" + itoa(in.Cell.Index),
		"--label", "repeat=" + itoa(in.Repeat),
		"--label", "attempt=" + itoa(in.Attempt),
	}
	switch sb.Spec.Transport {
	case sbv1.TransportTCP, sbv1.TransportUDP:
		a = append(a, "--pairs", itoa(p.Pairs))
	case sbv1.TransportRawEthernet:
		a = append(a, "--batch", itoa(p.Batch), "--tx-queues", itoa(p.Queues.TX), "--rx-queues", itoa(p.Queues.RX))
		a = append(a, rawArgs(sb)...)
	case sbv1.TransportRoCE:
		a = append(a, roceArgs(sb, role)...)
	}
	a = append(a, workloadArgs(sb.Spec.Workload, p)...)
	if p.TargetRateMbps > 0 {
		a = append(a, "--target-mbps", itoa(p.TargetRateMbps))
	}
	if s := sb.Spec.Socket; s != nil {
		if s.TCPNoDelay && sb.Spec.Transport == sbv1.TransportTCP {
			a = append(a, "--tcp-nodelay")
		}
		if s.UDPOffload == "GSO" || s.UDPOffload == "GSOAndGRO" {
			a = append(a, "--udp-gso")
		}
		if s.UDPOffload == "GRO" || s.UDPOffload == "GSOAndGRO" {
			a = append(a, "--udp-gro")
		}
		if s.BufferBytes > 0 {
			a = append(a, "--socket-buffer-bytes", itoa(s.BufferBytes))
		}
	}
	deadlineMs := strconv.FormatInt(DeadlineSeconds(run)*1000, 10)
	switch role {
	case RoleServer:
		bind := sb.Spec.Topology.Server.Address
		if bind == "" {
			bind = "0.0.0.0"
		}
		a = append(a, "--bind-address", bind, "--ready-file", readyFile, "--accept-timeout-ms", deadlineMs)
		a = append(a, cores(sb.Spec.Topology.Server.Cores, "--rx-cores", true)...)
	case RoleClient:
		a = append(a, "--server-address", serverAddress, "--connect-timeout-ms", "30000")
		a = append(a, cores(sb.Spec.Topology.Client.Cores, "--tx-cores", true)...)
	case RoleLoopback:
		// One process holds both ports: one master, the server side's.
		a = append(a, "--ready-file", readyFile)
		a = append(a, cores(sb.Spec.Topology.Server.Cores, "--rx-cores", true)...)
		a = append(a, cores(sb.Spec.Topology.Client.Cores, "--tx-cores", false)...)
	}
	return a
}

// rawArgs names the DPDK ports and buffers. A port without an explicit PCI address or vdev
// is taken from the device plugin's PCIDEVICE_<RESOURCE> variable of the side's first device
// (the data plane reads "env:NAME" at start-up: the kubelet sets it inside the container).
func rawArgs(sb *sbv1.SpiralBench) []string {
	r := sb.Spec.RawEthernet
	if r == nil {
		r = &sbv1.RawEthernetSpec{}
	}
	a := []string{
		"--tx-port", port(r.TXPort, sb.Spec.Topology.Client),
		"--rx-port", port(r.RXPort, sb.Spec.Topology.Server),
		"--memory", memoryFlag(r.Memory),
	}
	if sb.Spec.Topology.Server.Hugepages == nil && sb.Spec.Topology.Client.Hugepages == nil {
		a = append(a, "--no-huge") // no huge pages are mounted: DPDK uses ordinary memory
	}
	if r.RingDescriptors > 0 {
		a = append(a, "--ring-descriptors", itoa(r.RingDescriptors))
	}
	if r.PoolBuffers > 0 {
		a = append(a, "--pool-buffers", itoa(r.PoolBuffers))
	}
	a = append(a, workers(sb.Spec.Topology.Client.Cores, "--tx-workers")...)
	a = append(a, workers(sb.Spec.Topology.Server.Cores, "--rx-workers")...)
	return a
}

func port(p *sbv1.PortSource, side sbv1.SideSpec) string {
	switch {
	case p != nil && p.PCIAddress != "":
		return p.PCIAddress
	case p != nil && p.VirtualDevice != "":
		return p.VirtualDevice
	case len(side.Devices) > 0:
		return "env:" + PCIDeviceEnv(side.Devices[0].ResourceName)
	}
	return ""
}

// PCIDeviceEnv is the variable the SR-IOV and host-device plugins set for a resource:
// PCIDEVICE_ followed by the resource name upper-cased, with / . - as _.
func PCIDeviceEnv(resource string) string {
	return "PCIDEVICE_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(strings.ToUpper(resource))
}

func memoryFlag(m sbv1.MemoryKind) string {
	switch m {
	case sbv1.MemoryHostPinned:
		return "host_pinned"
	case sbv1.MemoryDevice:
		return "device"
	}
	return "host"
}

func roceArgs(sb *sbv1.SpiralBench, role string) []string {
	r := sb.Spec.RoCE
	if r == nil {
		r = &sbv1.RoCESpec{}
	}
	verb, mode := strings.ToLower(string(r.Verb)), strings.ToLower(string(r.Mode))
	if verb == "" {
		verb = "send"
	}
	if mode == "" {
		mode = "bandwidth"
	}
	a := []string{"--verb", verb, "--mode", mode, "--queue-pairs", itoa(max(r.QueuePairs, 1)), "--memory", memoryFlag(r.Memory)}
	if r.TXDepth > 0 {
		a = append(a, "--tx-depth", itoa(r.TXDepth))
	}
	if r.RXDepth > 0 {
		a = append(a, "--rx-depth", itoa(r.RXDepth))
	}
	// The RoCE GID follows the netdev the pod was given: its first secondary network.
	side := sb.Spec.Topology.Server
	if role == RoleClient {
		side = sb.Spec.Topology.Client
	}
	if len(side.Networks) > 0 && side.Networks[0].Interface != "" {
		a = append(a, "--netdev", side.Networks[0].Interface)
	}
	return a
}

// workloadArgs passes the GPU workload's settings; the kind itself is always passed.
func workloadArgs(w *sbv1.WorkloadSpec, p sbv1.CellParameters) []string {
	if w == nil || p.Workload == "" || p.Workload == sbv1.WorkloadNone {
		return nil
	}
	a := []string{"--sync-interval", itoa(w.SyncInterval), "--max-in-flight", itoa(w.MaxInFlight)}
	if w.GEMMN > 0 {
		a = append(a, "--gemm-n", itoa(w.GEMMN))
	}
	if w.FFTLength > 0 {
		a = append(a, "--fft-length", itoa(w.FFTLength))
	}
	if p.WorkloadBatchBytes > 0 {
		a = append(a, "--workload-batch-bytes", itoa(p.WorkloadBatchBytes))
	}
	return a
}

func workers(c *sbv1.CoreMap, flag string) []string {
	if c == nil || len(c.Workers) == 0 {
		return nil
	}
	list := make([]string, len(c.Workers))
	for i, v := range c.Workers {
		list[i] = itoa(v)
	}
	return []string{flag, strings.Join(list, ",")}
}

func cores(c *sbv1.CoreMap, pollerFlag string, withMaster bool) []string {
	if c == nil {
		return nil
	}
	var a []string
	if withMaster && c.Master != nil {
		a = append(a, "--master-core", itoa(*c.Master))
	}
	if len(c.Pollers) > 0 {
		list := make([]string, len(c.Pollers))
		for i, v := range c.Pollers {
			list[i] = itoa(v)
		}
		a = append(a, pollerFlag, strings.Join(list, ","))
	}
	return a
}

func transportFlag(t sbv1.Transport) string {
	switch t {
	case sbv1.TransportRawEthernet:
		return "raw"
	case sbv1.TransportRoCE:
		return "roce"
	}
	return strings.ToLower(string(t))
}

func itoa[T ~int32 | ~int](v T) string { return strconv.Itoa(int(v)) }

func pullPolicy(p corev1.PullPolicy) corev1.PullPolicy {
	if p == "" {
		return corev1.PullIfNotPresent
	}
	return p
}
