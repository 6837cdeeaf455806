package fleetctrl

import (
	"context"
	"fmt"
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

// compareHistory compares the node's run with its own earlier comparable runs (spec.baseline).
// A bucket that cannot be reached costs the comparison, never the verdict: the note says so.
// It returns the comparison (nil when none was made), its words, and a note for the row.
func (r *Reconciler) compareHistory(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, repeats []int64) (*fleet.Regression, string, string) {
	spec := v.f.Spec.Baseline
	if spec == nil || len(repeats) == 0 {
		return nil, "", ""
	}
	b, err := r.bucketOf(ctx, v)
	if b == nil {
		if err != nil {
			return nil, "", "no baseline: " + err.Error()
		}
		return nil, "", ""
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	records, err := r.readHistory(ctx, b, fleet.HistoryPrefix(b.prefix, v.f.Namespace, v.f.Name, row.Name))
	if err != nil {
		return nil, "", "no baseline: " + err.Error()
	}
	values, runs := fleet.Baseline(records, v.metric, benchEnvironment(sb), spec.EnvironmentKeys, row.RunID, int(spec.Runs))
	reg := fleet.Regressed(values, repeats, float64(spec.KMilli)/1000, float64(spec.MinRegressionPercent), figure.HigherIsBetter(v.metric))
	if reg.Samples >= 2 && row.Value != nil {
		delta := fleet.DeltaMilliPercent(*row.Value, reg.Mean)
		row.BaselineDeltaMilliPercent = &delta
	}
	detail := ""
	if reg.Regressed && row.Value != nil {
		detail = fmt.Sprintf("regressed: %d vs its history %.0f (std %.0f, %d runs, threshold %.0f)", *row.Value, reg.Mean, reg.Std, runs, reg.Threshold)
	}
	return &reg, detail, ""
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

// uploadSummaryIfDue uploads a finished round's summary (CSV and JSON) once.
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
	files, err := fleet.SummaryFiles(s)
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
	setFleetCondition(f, sbv1.ConditionResultsUploaded, metav1.ConditionTrue, sbv1.ReasonUploaded,
		fmt.Sprintf("round %d summary in s3://%s/%s", f.Status.Round, b.target.Bucket, folder))
	return 0
}
