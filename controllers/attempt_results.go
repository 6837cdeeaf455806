package controllers

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// Each finished attempt's repeats are a SpiralBenchAttemptResult the bench owns, written
// before the status that counts the attempt; the bench's status keeps each cell's aggregate.
// A reconcile reads them back into the cell results first, so the step and the upload see
// every repeat as if status held them.

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchattemptresults,verbs=get;list;watch;create

// attachAttempts puts the repeats of the bench's counted attempts into its cell results: from
// the cache, or, when the cache has not yet seen the latest one, from the apiserver.
func (r *SpiralBenchReconciler) attachAttempts(ctx context.Context, sb *sbv1.SpiralBench) error {
	counted := false
	for _, c := range sb.Status.CellResults {
		counted = counted || c.Attempts > 0
	}
	if !counted {
		return nil
	}
	if missing, err := attachCached(ctx, r.Client, r.Provenance, sb); err != nil || missing == 0 {
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
func (r *SpiralBenchReconciler) recordAttempt(ctx context.Context, sb *sbv1.SpiralBench, cell, attempt int32, o outcome) (*sbv1.SpiralBenchAttemptResult, error) {
	rec := attempts.New(sb, cell, attempt, o.results, clip(o.reason, 1000), o.final)
	if err := controllerutil.SetControllerReference(sb, rec, r.Scheme()); err != nil {
		return nil, err
	}
	if err := mark(r.Provenance, rec); err != nil {
		return nil, err
	}
	err := r.Create(ctx, rec)
	if apierrors.IsAlreadyExists(err) {
		stored := &sbv1.SpiralBenchAttemptResult{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(rec), stored); err != nil {
			return nil, fmt.Errorf("read attempt result %s: %w", rec.Name, err)
		}
		if err := foreign(r.Provenance, stored); err != nil {
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

// attachCached attaches the bench's attempt results as the manager's cache has them and says
// how many of the attempts its status counts the cache lacks.
func attachCached(ctx context.Context, c client.Reader, key *provenance.Key, sb *sbv1.SpiralBench) (int, error) {
	var list sbv1.SpiralBenchAttemptResultList
	if err := c.List(ctx, &list, client.InNamespace(sb.Namespace), client.MatchingFields{attempts.BenchIndex: sb.Namespace + "/" + sb.Name}); err != nil {
		return 0, err
	}
	return attempts.Attach(sb, list.Items, ownAttempt(key, sb)), nil
}

// repeatsOf is a finished bench with its repeats attached, for a fleet's judge, once per step
// and bench. The fleet reads benches straight from the cache, so the repeats go into a copy of
// the bench and its cell list (Attach gives each cell a new repeats slice; nothing else is
// written). The cache may show the bench's last status before the record it counts, so what
// the cache lacks is read from the apiserver. Without its records (deleted by hand) the bench
// is judged on its aggregates, as its own verdict was.
func (r *FleetReconciler) repeatsOf(ctx context.Context, v *fleetView, sb *sbv1.SpiralBench) *sbv1.SpiralBench {
	if full := v.withRepeats[sb]; full != nil {
		return full
	}
	full := *sb
	full.Status.CellResults = slices.Clone(sb.Status.CellResults)
	missing, err := attachCached(ctx, r.Client, r.Provenance, &full)
	if err == nil && missing > 0 {
		err = attempts.Load(ctx, r.APIReader, &full, ownAttempt(r.Provenance, &full))
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("fleet judges a bench without its attempt results", "bench", sb.Name, "error", err.Error())
	}
	if v.withRepeats == nil {
		v.withRepeats = map[*sbv1.SpiralBench]*sbv1.SpiralBench{}
	}
	v.withRepeats[sb] = &full
	return &full
}

// ownAttempt trusts the records this manager wrote for sb.
func ownAttempt(key *provenance.Key, sb *sbv1.SpiralBench) func(*sbv1.SpiralBenchAttemptResult) bool {
	return func(a *sbv1.SpiralBenchAttemptResult) bool { return metav1.IsControlledBy(a, sb) && trusted(key, a) }
}

func (r *SpiralBenchReconciler) ownAttempt(sb *sbv1.SpiralBench) func(*sbv1.SpiralBenchAttemptResult) bool {
	return ownAttempt(r.Provenance, sb)
}
