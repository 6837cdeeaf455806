package benchctrl

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// Reading a cell pod's state: whether it exists, runs, has ended and how.

// getPod reads a pod from the cache and, when the cache lacks it and live is set, from the
// apiserver: a pod just created may not be cached yet, and only the apiserver can say it is
// really gone. A pod without the manager's mark is a *provenance.ForeignError.
func (r *Reconciler) getPod(ctx context.Context, ns, name string, live bool) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod)
	if apierrors.IsNotFound(err) && live {
		err = r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if pod.DeletionTimestamp != nil && !benchstate.PodEnded(pod) {
		return nil, nil // being deleted mid-run: as good as gone
	}
	if err := benchstate.Foreign(r.Provenance, pod); err != nil {
		return nil, err // in the way, never read: a *provenance.ForeignError
	}
	return pod, nil
}

// containerStarted: the pod's data plane container runs (the relay starts beside it).
func containerStarted(p *corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running != nil && !cellpod.IsRelay(cs) {
			return true
		}
	}
	return false
}

// podEnd says how a pod ended, for failure messages.
func podEnd(p *corev1.Pod) string {
	if t := benchstate.Terminated(p); t != nil {
		return fmt.Sprintf("exit code %d (%s): %s", t.ExitCode, t.Reason, lastLine(t.Message))
	}
	return fmt.Sprintf("phase %s: %s %s", p.Status.Phase, p.Status.Reason, p.Status.Message)
}

// deadlineReason names the deadline and what each pod was doing, e.g. unschedulable.
func deadlineReason(in cellpod.Input, pods ...*corev1.Pod) string {
	var states []string
	for _, p := range pods {
		s := fmt.Sprintf("%s %s", p.Labels[cellpod.LabelRole], p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				s += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
				break
			}
		}
		states = append(states, s)
	}
	return fmt.Sprintf("exceeded the cell deadline of %ds; %s", in.Deadline(), strings.Join(states, ", "))
}

// knownAddress is rank 0's address when it is known before rank 0 runs: the side's fixed
// address, or, for a host-network pod on one link, its node's InternalIP (the address the
// kubelet reports as such a pod's IP). "" when only the running pod can tell.
func (r *Reconciler) knownAddress(ctx context.Context, side sbv1.SideSpec, nodeName string) (string, error) {
	if side.Address != "" {
		return side.Address, nil
	}
	if !side.HostNetwork || nodeName == "" {
		return "", nil
	}
	var node corev1.Node
	if err := r.Get(ctx, client.ObjectKey{Name: nodeName}, &node); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address, nil
		}
	}
	return "", nil
}

// rendezvousAddress is where the other ranks connect to rank 0: its primary side's fixed
// address, else the first secondary network's IP (Multus network-status), else the pod IP.
// With links above 1 it is the IPs of the first `links` secondary networks, comma-separated,
// one per link (cellpod's --server-addresses); "" until Multus reports them all.
func rendezvousAddress(p *corev1.Pod, side sbv1.SideSpec, links int32) string {
	if side.Address != "" {
		return side.Address
	}
	if len(side.Networks) > 0 {
		var status []struct {
			Interface string   `json:"interface"`
			IPs       []string `json:"ips"`
			Default   bool     `json:"default"`
		}
		var ips []string
		if err := json.Unmarshal([]byte(p.Annotations["k8s.v1.cni.cncf.io/network-status"]), &status); err == nil {
			for _, s := range status {
				if !s.Default && len(s.IPs) > 0 && len(ips) < int(max(links, 1)) {
					ips = append(ips, s.IPs[0])
				}
			}
		}
		if len(ips) < int(max(links, 1)) {
			return "" // wait for Multus to report every attachment
		}
		return strings.Join(ips, ",")
	}
	return p.Status.PodIP
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return clip(s, 400)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// imageDigest is the image the kubelet ran for the data plane container, by digest
// (containerStatuses imageID, "docker-pullable://repo@sha256:..." or "repo@sha256:...").
func imageDigest(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if c.ImageID != "" && !cellpod.IsRelay(c) {
			id := c.ImageID
			if i := strings.Index(id, "://"); i >= 0 {
				id = id[i+3:]
			}
			return clip(id, 500)
		}
	}
	return ""
}
