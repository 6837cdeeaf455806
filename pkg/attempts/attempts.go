// Package attempts keeps each finished attempt of a bench's cell as a SpiralBenchAttemptResult
// and puts their repeats back into the bench's cell results (CellResult.RepeatResults, which
// the bench itself does not store) for everything that reads per-repeat detail: the
// controller's aggregate and upload, fleets, sbctl.
package attempts

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
)

// BenchIndex is the cache's field index of attempt results by "namespace/bench" (the
// manager registers it with IndexBench), so a bench's attempts are found without scanning
// every attempt of the namespace.
const BenchIndex = ".spiralbench.bench"

// IndexBench is BenchIndex's value for an attempt result.
func IndexBench(o client.Object) []string {
	a := o.(*sbv1.SpiralBenchAttemptResult)
	return []string{a.Namespace + "/" + a.Bench}
}

// Name is the attempt result's name: the bench, cell and attempt, like the attempt's pods.
func Name(bench string, cell, attempt int32) string {
	return fmt.Sprintf("%s-c%d-a%d", bench, cell, attempt)
}

// New is the record of one finished attempt; the caller sets the bench as its owner.
func New(sb *sbv1.SpiralBench, cell, attempt int32, repeats []sbv1.RepeatResult, message string, final bool) *sbv1.SpiralBenchAttemptResult {
	return &sbv1.SpiralBenchAttemptResult{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name(sb.Name, cell, attempt), Namespace: sb.Namespace,
			Labels: map[string]string{sbv1.LabelAttemptBench: sb.Name},
		},
		Bench: sb.Name, CellIndex: cell, Attempt: attempt,
		Measured: int32(len(repeats)), Message: message, Final: final, RepeatResults: repeats,
	}
}

// Attach puts the repeats of the attempts the bench's status has counted (attempt numbers
// below each cell's attempts) into its cell results, in attempt order, and derives from them
// the figures the bench does not store (aggregate.Derive, and the noisy flag against the
// spec's threshold); a cell missing an attempt gets
// none of those, never figures of part of its repeats. Attempts written but not yet counted
// (their status write failed) are left out, so the step that counts them adds them once.
// Only records under their own name that trust accepts are read: the manager passes its
// provenance check, a client the owner check (Owned). It reports the
// attempts status counts that items lack: a cache that has not seen the latest write yet,
// attempts deleted by hand, or records trust refused.
func Attach(sb *sbv1.SpiralBench, items []sbv1.SpiralBenchAttemptResult, trust func(*sbv1.SpiralBenchAttemptResult) bool) (missing int) {
	byCell := map[int32][]*sbv1.SpiralBenchAttemptResult{}
	for i := range items {
		a := &items[i]
		if a.Bench == sb.Name && a.Namespace == sb.Namespace && a.Name == Name(sb.Name, a.CellIndex, a.Attempt) && trust(a) {
			byCell[a.CellIndex] = append(byCell[a.CellIndex], a)
		}
	}
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		list := byCell[c.Index]
		sort.Slice(list, func(x, y int) bool { return list[x].Attempt < list[y].Attempt })
		c.RepeatResults = nil
		seen := map[int32]bool{}
		for _, a := range list {
			if a.Attempt < c.Attempts && !seen[a.Attempt] {
				seen[a.Attempt] = true
				c.RepeatResults = append(c.RepeatResults, a.RepeatResults...)
			}
		}
		missing += int(c.Attempts) - len(seen)
		if len(seen) == int(c.Attempts) {
			aggregate.Derive(c)
			aggregate.FlagNoisy(c, sb.Spec.Run.NoisySpreadPercent)
		} else {
			aggregate.ClearDerived(c)
		}
	}
	return missing
}

// Load reads the bench's attempt results through r (a client, not the manager's cache: it
// selects by label) and attaches them; an error names the attempts it could not find.
func Load(ctx context.Context, r client.Reader, sb *sbv1.SpiralBench, trust func(*sbv1.SpiralBenchAttemptResult) bool) error {
	var list sbv1.SpiralBenchAttemptResultList
	if err := r.List(ctx, &list, client.InNamespace(sb.Namespace), client.MatchingLabels{sbv1.LabelAttemptBench: sb.Name}); err != nil {
		return fmt.Errorf("read the attempt results of %s/%s: %w", sb.Namespace, sb.Name, err)
	}
	if missing := Attach(sb, list.Items, trust); missing > 0 {
		return fmt.Errorf("%d attempt result(s) of %s/%s are missing (kubectl get sbar -l %s=%s)",
			missing, sb.Namespace, sb.Name, sbv1.LabelAttemptBench, sb.Name)
	}
	return nil
}

// Owned is the trust of a reader without the manager's key: records the bench controls. It
// keeps out records of other benches, not records forged under the bench's name with its
// owner reference (only the manager can tell those: `sbctl verify` checks the uploaded files).
func Owned(sb *sbv1.SpiralBench) func(*sbv1.SpiralBenchAttemptResult) bool {
	return func(a *sbv1.SpiralBenchAttemptResult) bool { return metav1.IsControlledBy(a, sb) }
}
