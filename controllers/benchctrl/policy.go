package benchctrl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/policy"
)

// The admin's policy, applied before the pods of each attempt exist: an image off the
// allow-list, a priority class the admin does not allow (system-* by default), privileges in a
// namespace not allowed them, or pods the namespace's Pod Security level refuses fail the bench
// at once, with what to change, instead of leaving pods stuck in creation on leased nodes.

// ReasonQuotaExceeded: a ResourceQuota of the namespace refused a cell pod; the bench waits
// in Queued without holding nodes.
const ReasonQuotaExceeded = "QuotaExceeded"

// quotaRetry is how often a bench held back by a quota tries again.
const quotaRetry = 10 * time.Second

// The namespace is read straight from the apiserver (no cache of every namespace, hence get only).
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get

// admit judges the pods the next attempt of cell would create, one per rank, against the
// admin's policy; nil when they may be created.
func (r *Reconciler) admit(ctx context.Context, sb *sbv1.SpiralBench, cell plan.Cell) (*policy.Refusal, error) {
	ns, err := r.namespaces.get(ctx, r.APIReader, sb.Namespace)
	if err != nil {
		return nil, fmt.Errorf("read namespace %s for the bench policy: %w", sb.Namespace, err)
	}
	in, err := r.input(sb, cell, 0, 1, 0)
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, 0, len(in.Ranks))
	for _, rank := range in.Ranks {
		pods = append(pods, cellpod.Build(in, rank, ""))
	}
	if ref := policy.CheckImages(r.AllowedImages, r.DefaultImage, pods); ref != nil {
		return ref, nil
	}
	if ref := policy.CheckPriorityClass(r.AllowedPriorityClasses, pods); ref != nil {
		return ref, nil
	}
	if ref := policy.CheckPrivileges(ns, r.PrivilegedNamespaces, &sb.Spec); ref != nil {
		return ref, nil
	}
	return policy.CheckPodSecurity(ns, pods), nil
}

// refuse fails the bench for good: its pods go, its leases are released, the Failed condition
// and a Warning event say why and what to change. Results of earlier cells stay in status.
func (r *Reconciler) refuse(ctx context.Context, sb *sbv1.SpiralBench, ref *policy.Refusal) error {
	if err := r.deleteAllPods(ctx, sb); err != nil {
		return err
	}
	r.releaseNodes(ctx, sb, sb.Status.Nodes)
	now := metav1.Now()
	sb.Status.ActiveAttempt = nil
	sb.Status.Phase = sbv1.PhaseFailed
	sb.Status.CompletionTime = &now
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, ref.Reason, ref.Message)
	if setCondition(sb, sbv1.ConditionFailed, metav1.ConditionTrue, ref.Reason, ref.Message) {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, ref.Reason, "Admit", "%s", clip(ref.Message, 1000))
	}
	return nil
}

// createRefused handles an error creating rank 0's pod. The apiserver refusing it for a quota
// queues the bench without its nodes until the quota has room; refusing it otherwise (the
// cluster's default Pod Security level, an admission policy or webhook, an unknown priority
// class) fails the bench, since the same pod would be refused again. Other errors are retried.
func (r *Reconciler) createRefused(ctx context.Context, sb *sbv1.SpiralBench, err error) (time.Duration, error) {
	switch {
	case quotaExceeded(err):
		r.releaseNodes(ctx, sb, sb.Status.Nodes)
		sb.Status.Phase = sbv1.PhaseQueued
		msg := "waiting for room in the namespace's ResourceQuota: " + apiMessage(err)
		if setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, ReasonQuotaExceeded, msg) {
			r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, ReasonQuotaExceeded, "Queue", "%s", clip(msg, 1000))
		}
		return quotaRetry, nil
	case refusedForGood(err):
		return 0, r.refuse(ctx, sb, podsForbidden(sb, err))
	}
	return 0, err
}

func quotaExceeded(err error) bool {
	// The ResourceQuota admission plugin's words: over the limit, or usage not yet computed.
	return apierrors.IsForbidden(err) && (strings.Contains(err.Error(), "exceeded quota") || strings.Contains(err.Error(), "status unknown for quota"))
}

func refusedForGood(err error) bool {
	return (apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) && !quotaExceeded(err)
}

func podsForbidden(sb *sbv1.SpiralBench, err error) *policy.Refusal {
	return &policy.Refusal{Reason: policy.ReasonPodsForbidden, Message: fmt.Sprintf(
		"the apiserver refused the bench's pod in namespace %s: %s. Change what it names (for Pod Security, "+
			"the namespace's label pod-security.kubernetes.io/enforce=privileged), then re-create the SpiralBench",
		sb.Namespace, apiMessage(err))}
}

// apiMessage is the apiserver's message without our own "create pod NAME:" prefix.
func apiMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}
