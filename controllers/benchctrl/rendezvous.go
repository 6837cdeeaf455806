package benchctrl

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// confirmRendezvous holds what rank 0 announced to the manager's rendezvous against the pod IP
// the kubelet reports for it (pkg/rendezvous), and until rank 0 announces, publishes that IP
// for the ranks waiting there. "" when nothing is wrong; else why the attempt cannot be
// trusted. Judging, rank 0 must have a reported IP: a pod that ran on the pod network has one,
// and without it the address its peers were given cannot be checked.
func (r *Reconciler) confirmRendezvous(in cellpod.Input, rank0 *corev1.Pod, judging bool) string {
	if !in.ViaRendezvous() {
		return ""
	}
	if rank0.Status.PodIP == "" {
		if judging {
			return "rank 0's pod ended with no IP in its status: the address the rendezvous gave the other ranks cannot be checked"
		}
		return ""
	}
	return r.Rendezvous.Confirm(string(rank0.UID), rank0.Status.PodIP)
}
