package fleetctrl

import (
	"context"
	"slices"

	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
)

// repeatsOf is a finished bench with its repeats attached, for a fleet's judge, once per step
// and bench, and once for all steps when every record was read (the step's memo, read_memo.go). The fleet reads benches straight from the cache, so the repeats go into a copy of
// the bench and its cell list (Attach gives each cell a new repeats slice; nothing else is
// written). The cache may show the bench's last status before the record it counts, so what
// the cache lacks is read from the apiserver. Without its records (deleted by hand) the bench
// is judged on its aggregates, as its own verdict was.
func (r *Reconciler) repeatsOf(ctx context.Context, v *fleetView, sb *sbv1.SpiralBench) *sbv1.SpiralBench {
	if full := v.withRepeats[sb]; full != nil {
		return full
	}
	memo := v.memo.benchOf(sb)
	if memo != nil && memo.full != nil {
		memo.used = v.memo.gen
		return memo.full
	}
	full := *sb
	full.Status.CellResults = slices.Clone(sb.Status.CellResults)
	missing, err := benchstate.AttachCached(ctx, r.Client, r.Provenance, &full)
	if err == nil && missing > 0 {
		err = attempts.Load(ctx, r.APIReader, &full, benchstate.OwnAttempt(r.Provenance, &full))
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("fleet judges a bench without its attempt results", "bench", sb.Name, "error", err.Error())
	} else if memo != nil && benchstate.Finished(sb) {
		// A finished bench's records are all written: the next steps would read the same.
		memo.full, memo.used = &full, v.memo.gen
	}
	if v.withRepeats == nil {
		v.withRepeats = map[*sbv1.SpiralBench]*sbv1.SpiralBench{}
	}
	v.withRepeats[sb] = &full
	return &full
}
