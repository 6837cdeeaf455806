package benchctrl

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
)

// Each finished attempt's repeats are a SpiralBenchAttemptResult the bench owns, written
// before the status that counts the attempt; the bench's status keeps each cell's aggregate.
// A reconcile reads them back into the cell results first, so the step and the upload see
// every repeat as if status held them.

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchattemptresults,verbs=get;list;watch;create

// attachAttempts puts the repeats of the bench's counted attempts into its cell results: from
// the cache, or, when the cache has not yet seen the latest one, from the apiserver.
func (r *Reconciler) attachAttempts(ctx context.Context, sb *sbv1.SpiralBench) error {
	counted := false
	for _, c := range sb.Status.CellResults {
		counted = counted || c.Attempts > 0
	}
	if !counted {
		return nil
	}
	if missing, err := benchstate.AttachCached(ctx, r.Client, r.Provenance, sb); err != nil || missing == 0 {
		return err
	}
	if err := attempts.Load(ctx, r.APIReader, sb, r.ownAttempt(sb)); err != nil {
		// Deleted by hand: the cells keep their aggregates; what is gone is reported, not invented.
		ctrl.LoggerFrom(ctx).Info("bench has attempts without their results", "error", err.Error())
	}
	return nil
}

// recordAttempt writes a finished attempt's record and returns the record as stored: when an
// earlier step wrote it and its status write was lost, the first record stands, so a step
// retaken on a later look at the pods cannot change what the attempt measured.
func (r *Reconciler) recordAttempt(ctx context.Context, sb *sbv1.SpiralBench, cell, attempt int32, o outcome) (*sbv1.SpiralBenchAttemptResult, error) {
	rec := attempts.New(sb, cell, attempt, o.results, clip(o.reason, 1000), o.final)
	if err := controllerutil.SetControllerReference(sb, rec, r.Scheme()); err != nil {
		return nil, err
	}
	if err := benchstate.Mark(r.Provenance, rec); err != nil {
		return nil, err
	}
	err := r.Create(ctx, rec)
	if apierrors.IsAlreadyExists(err) {
		stored := &sbv1.SpiralBenchAttemptResult{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(rec), stored); err != nil {
			return nil, fmt.Errorf("read attempt result %s: %w", rec.Name, err)
		}
		if err := benchstate.Foreign(r.Provenance, stored); err != nil {
			// Someone else's record under this attempt's name: the attempt counts as failed,
			// with nothing measured, and the next one writes under its own name.
			return attempts.New(sb, cell, attempt, nil, clip(err.Error(), 1000), false), nil
		}
		return stored, nil
	}
	if err != nil {
		return nil, fmt.Errorf("write attempt result %s: %w", rec.Name, err)
	}
	return rec, nil
}

func (r *Reconciler) ownAttempt(sb *sbv1.SpiralBench) func(*sbv1.SpiralBenchAttemptResult) bool {
	return benchstate.OwnAttempt(r.Provenance, sb)
}
