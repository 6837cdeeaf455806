package benchctrl

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// confirmRendezvous holds what rank 0 announced to the manager's rendezvous against the pod IP
// the kubelet reports for it (pkg/rendezvous), and until rank 0 announces, publishes that IP
// for the ranks waiting there. "" when they agree or the kubelet has reported no IP yet; else
// why the attempt cannot be trusted.
func (r *Reconciler) confirmRendezvous(in cellpod.Input, rank0 *corev1.Pod) string {
	if !in.ViaRendezvous() || rank0.Status.PodIP == "" {
		return ""
	}
	return r.Rendezvous.Confirm(string(rank0.UID), rank0.Status.PodIP)
}

// unconfirmedRendezvous: what measured repeats of an attempt through the rendezvous cannot be
// judged on, a rank 0 with no reported IP (a pod that ran on the pod network has one), so the
// address its peers were given was never checked. "" otherwise.
func unconfirmedRendezvous(in cellpod.Input, rank0 *corev1.Pod) string {
	if !in.ViaRendezvous() || rank0.Status.PodIP != "" {
		return ""
	}
	return "rank 0's pod ended with no IP in its status: the address the rendezvous gave the other ranks cannot be checked"
}
