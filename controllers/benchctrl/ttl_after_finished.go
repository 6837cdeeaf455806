package benchctrl

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// expireIfDue deletes a finished bench once ttlSecondsAfterFinished has passed; otherwise it
// says how long to wait. Zero means no TTL applies.
func (r *Reconciler) expireIfDue(ctx context.Context, sb *sbv1.SpiralBench) (time.Duration, error) {
	ttl := sb.Spec.TTLSecondsAfterFinished
	if ttl == nil || sb.Status.CompletionTime == nil {
		return 0, nil
	}
	left := time.Until(sb.Status.CompletionTime.Add(time.Duration(*ttl) * time.Second))
	if left > 0 {
		return left, nil
	}
	return 0, client.IgnoreNotFound(r.Delete(ctx, sb, client.PropagationPolicy("Background")))
}
