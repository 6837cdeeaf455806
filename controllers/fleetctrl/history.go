package fleetctrl

import (
	"context"
	"fmt"
	"maps"
	"path"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// summaryRetry is how soon a failed summary upload is tried again.
const summaryRetry = 30 * time.Second

// historyRecordFile is a node's record of one run: <history folder>/<run id>/record.json,
// beside the folder's SIGNATURE.json (fleet.RecordKey).
const historyRecordFile = "record.json"

// bucketOf resolves the fleet's bucket once per step; nil when there is none.
func (r *Reconciler) bucketOf(ctx context.Context, v *fleetView) (*fleetBucket, error) {
	if v.bucketResolved {
		return v.bucket, v.bucketErr
	}
	v.bucketResolved = true
	f := v.f
	spec, secretNS := f.Spec.Results, f.Namespace
	var templateResults *sbv1.ResultsSpec
	if f.Spec.Template != nil {
		templateResults = f.Spec.Template.Spec.Results
	}
	if spec == nil {
		spec = templateResults
	}
	if spec == nil {
		spec, secretNS = r.DefaultBucket.Results(), r.DefaultBucket.Namespace
	}
	if spec == nil || r.Store == nil {
		return nil, nil
	}
	own := f.Spec.Results == nil && templateResults == nil // the operator's default bucket
	t, err := benchstate.ResolveTarget(ctx, r.APIReader, spec, secretNS, f.Namespace, own, r.AllowedEndpoints)
	if err != nil {
		v.bucketErr = err
		return nil, err
	}
	v.bucket = &fleetBucket{target: t, prefix: spec.Prefix}
	return v.bucket, nil
}

// historyFinding is what the node's own history says of this run: the comparison with its
// baseline (nil when none was made) in words, a note for the row, and why its trend is
// degrading ("" when it is not, or no trend was asked for).
type historyFinding struct {
	regression   *fleet.Regression
	detail, note string
	degrading    string
}

// compareHistory compares the node's run with its own earlier comparable runs (spec.baseline),
// and with baseline.trendRounds reads their trend. A bucket that cannot be reached costs the
// comparison, never the verdict: the note says so.
func (r *Reconciler) compareHistory(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, repeats []int64) historyFinding {
	spec := v.f.Spec.Baseline
	if spec == nil || len(repeats) == 0 {
		return historyFinding{}
	}
	b, err := r.bucketOf(ctx, v)
	if b == nil {
		if err != nil {
			return historyFinding{note: "no baseline: " + err.Error()}
		}
		return historyFinding{}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	records, err := r.readHistory(ctx, b, fleet.HistoryPrefix(b.prefix, v.f.Namespace, v.f.Name, row.Name))
	if err != nil {
		return historyFinding{note: "no baseline: " + err.Error()}
	}
	env := benchEnvironment(sb)
	values, runs := fleet.Baseline(records, v.metric, env, spec.EnvironmentKeys, row.RunID, int(spec.Runs))
	reg := fleet.Regressed(values, repeats, float64(spec.KMilli)/1000, float64(spec.MinRegressionPercent), figure.HigherIsBetter(v.metric))
	if reg.Samples >= 2 && row.Value != nil {
		delta := fleet.DeltaMilliPercent(*row.Value, reg.Mean)
		row.BaselineDeltaMilliPercent = &delta
	}
	h := historyFinding{regression: &reg}
	if reg.Regressed && row.Value != nil {
		h.detail = fmt.Sprintf("regressed: %d vs its history %.0f (std %.0f, %d runs, threshold %.0f)", *row.Value, reg.Mean, reg.Std, runs, reg.Threshold)
	}
	if spec.TrendRounds > 0 {
		series := append(fleet.RunMeans(records, v.metric, env, spec.EnvironmentKeys, row.RunID, int(spec.TrendRuns)), mean(repeats))
		h.degrading = degrading(v, series, int(spec.TrendRounds))
	}
	return h
}

// degrading says why the series' trend crosses the figure's floor within rounds ("" when it
// does not, or the fleet states no floor for the figure).
func degrading(v *fleetView, series []float64, rounds int) string {
	floor, ok := trendFloor(v)
	if !ok || len(series) < 3 {
		return ""
	}
	higher := figure.HigherIsBetter(v.metric)
	tr := fleet.Trend(series)
	crosses, in := fleet.CrossesWithin(tr, floor, higher, rounds)
	if !crosses {
		return ""
	}
	return fmt.Sprintf("degrading: %s %+.1f a round over %d runs (now %.0f), past its floor %.0f within %d rounds",
		v.metric, tr.Slope, tr.N, tr.Level(), floor, in)
}

// trendFloor is the figure's floor (its ceiling when lower is better): the template's
// acceptance rule on the figure, the tightest when there are several.
func trendFloor(v *fleetView) (float64, bool) {
	t := v.f.Spec.Template
	if t == nil || t.Spec.Acceptance == nil {
		return 0, false
	}
	higher := figure.HigherIsBetter(v.metric)
	var floor float64
	found := false
	for _, rule := range t.Spec.Acceptance.Rules {
		if string(rule.Metric) != v.metric {
			continue
		}
		bound := higher && (rule.Operator == sbv1.OperatorGreaterThanOrEqual || rule.Operator == sbv1.OperatorGreaterThan) ||
			!higher && (rule.Operator == sbv1.OperatorLessThanOrEqual || rule.Operator == sbv1.OperatorLessThan)
		if !bound {
			continue
		}
		value := float64(rule.Value)
		if !found || higher && value > floor || !higher && value < floor {
			floor, found = value, true
		}
	}
	return floor, found
}

func mean(values []int64) float64 {
	var sum float64
	for _, x := range values {
		sum += float64(x)
	}
	return sum / float64(len(values))
}

func benchEnvironment(sb *sbv1.SpiralBench) sbv1.Environment {
	env := sbv1.Environment{}
	if sb.Status.Environment != nil {
		env = *sb.Status.Environment
	}
	env.Node = ""
	return env
}

// appendHistory adds the decided run to the node's history in the bucket.
func (r *Reconciler) appendHistory(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, repeats []int64) {
	b, _ := r.bucketOf(ctx, v)
	if b == nil {
		return
	}
	rec := fleet.Record{Node: row.Name, Fleet: v.f.Name, Bench: sb.Name, RunID: report.RunID(sb), Time: fleet.TimeString(row.LastBenchTime.Time),
		Metric: v.metric, Verdict: string(row.Verdict), Values: repeats, Environment: benchEnvironment(sb)}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// A folder per record, beside its own SIGNATURE.json: records sharing the node's folder
	// would overwrite one another's signature.
	folder := path.Dir(fleet.RecordKey(b.prefix, v.f.Namespace, rec)) + "/"
	data, err := rec.Encode()
	if err == nil {
		files := map[string][]byte{historyRecordFile: data}
		if err = r.Provenance.Sign(files); err == nil {
			_, err = r.Store.Upload(ctx, b.target, folder, files)
		}
	}
	if err != nil {
		setFleetCondition(v.f, sbv1.ConditionResultsUploaded, metav1.ConditionFalse, sbv1.ReasonUploadFailed, "history of "+row.Name+": "+err.Error())
	}
}

// readHistory reads the node's records that verify against the manager's signature: a
// baseline decides verdicts, so a record someone put in the bucket (or one from before
// records were signed, at <history folder>/<run id>.json) is not read.
func (r *Reconciler) readHistory(ctx context.Context, b *fleetBucket, folder string) ([]fleet.Record, error) {
	keys, err := r.Store.List(ctx, b.target, folder)
	if err != nil {
		return nil, err
	}
	var out []fleet.Record
	for _, k := range keys {
		if path.Base(k) != historyRecordFile {
			continue
		}
		files := map[string][]byte{}
		for _, name := range []string{historyRecordFile, provenance.SignatureFile} {
			if files[name], err = r.Store.Get(ctx, b.target, path.Dir(k)+"/"+name); err != nil {
				break
			}
		}
		if err != nil {
			continue // a record without its signature (an upload cut short): not read
		}
		if _, err := provenance.VerifyFiles(files, r.Provenance.Public()); err != nil {
			continue
		}
		if rec, err := fleet.DecodeRecord(files[historyRecordFile]); err == nil {
			out = append(out, rec)
		}
	}
	return out, nil
}

func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// uploadSummaryIfDue uploads a finished round's summary (CSV and JSON, with its canary
// cohorts and their figures) once.
func (r *Reconciler) uploadSummaryIfDue(ctx context.Context, v *fleetView) time.Duration {
	f := v.f
	c := meta.FindStatusCondition(f.Status.Conditions, sbv1.FleetConditionRoundRunning)
	if c == nil || c.Reason != sbv1.ReasonRoundFinished || f.Status.Summary != nil {
		return 0
	}
	b, err := r.bucketOf(ctx, v)
	if b == nil {
		if err != nil {
			setFleetCondition(f, sbv1.ConditionResultsUploaded, metav1.ConditionFalse, sbv1.ReasonUploadFailed, err.Error())
			return summaryRetry
		}
		return 0
	}
	s := fleet.Summary{Namespace: f.Namespace, Fleet: f.Name, Round: f.Status.Round, Metric: v.metric, Median: f.Status.Median, Counts: f.Status.Counts}
	if t := f.Status.RoundStartTime; t != nil {
		s.RoundStart = fleet.TimeString(t.Time)
	}
	if t := f.Status.RoundCompletionTime; t != nil {
		s.RoundEnd = fleet.TimeString(t.Time)
	}
	for _, row := range v.sortedRows() {
		n := *row
		if n.Value != nil && f.Status.Median != nil && (n.Verdict == sbv1.NodePassed || n.Verdict == sbv1.NodeFailed) {
			n.FleetDeltaMilliPercent = ptr.To(fleet.DeltaMilliPercent(*n.Value, float64(*f.Status.Median)))
		}
		s.Nodes = append(s.Nodes, n)
	}
	s.Cohorts = cohortSummaries(v)
	files, err := fleet.SummaryFiles(s)
	// The cohorts' figures go beside the summary, under the same signature. One that cannot be
	// drawn costs the figures, never the summary: drawing again would fail again.
	figures, figErr := plots.CohortFiles(s.Cohorts)
	if err == nil && figErr == nil {
		maps.Copy(files, figures)
	}
	if err == nil {
		err = r.Provenance.Sign(files)
	}
	var uris []string
	roundID := fmt.Sprintf("round-%d", f.Status.Round)
	parts := []string{}
	if p := strings.Trim(b.prefix, "/"); p != "" {
		parts = append(parts, p)
	}
	folder := path.Join(append(parts, "fleets", f.Namespace, f.Name, roundID)...) + "/"
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		uris, err = r.Store.Upload(ctx, b.target, folder, files)
	}
	if err != nil {
		setFleetCondition(f, sbv1.ConditionResultsUploaded, metav1.ConditionFalse, sbv1.ReasonUploadFailed, err.Error())
		return summaryRetry
	}
	f.Status.Summary = &sbv1.Artifacts{RunID: roundID, URIs: uris}
	msg := fmt.Sprintf("round %d summary in s3://%s/%s", f.Status.Round, b.target.Bucket, folder)
	if figErr != nil {
		msg += "; cohort figures not drawn: " + figErr.Error()
	}
	setFleetCondition(f, sbv1.ConditionResultsUploaded, metav1.ConditionTrue, sbv1.ReasonUploaded, msg)
	return 0
}
