package fleetctrl

import (
	"context"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// expire turns verdicts older than verdicts.validSeconds into Expired between rounds (the
// node label follows), and returns how long until the next one expires.
func (r *Reconciler) expire(ctx context.Context, v *fleetView) time.Duration {
	now := r.now()
	var wait time.Duration
	for _, row := range v.sortedRows() {
		if row.ValidUntil == nil {
			continue
		}
		switch row.Verdict {
		case sbv1.NodePassed, sbv1.NodeFailed, sbv1.NodeInvalid:
		default:
			continue
		}
		if left := row.ValidUntil.Sub(now); left > 0 {
			if wait == 0 || left < wait {
				wait = left
			}
			continue
		}
		row.Reason = shorten("verdict "+string(row.Verdict)+" expired at "+row.ValidUntil.UTC().Format(time.RFC3339)+"; the next round benches it again", 160)
		row.Verdict = sbv1.NodeExpired
		r.writeVerdict(ctx, v, row)
	}
	return wait
}
