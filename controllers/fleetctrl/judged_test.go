package fleetctrl

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A bench goes once every node it benched has passed, it has finished and its results are in
// its bucket (when it has one): not a failed node's,
// not a pair's whose other node still runs, not one still running, not an upgrade's (pruned per
// gate), not another object made since under a judged bench's name, and nothing of a fleet that
// checks facts between rounds.
func TestJudgedBenchesGoOnlyWhenEveryNodeTheyBenchedPassed(t *testing.T) {
	bench := func(name, kind string, phase sbv1.Phase, nodes ...string) *sbv1.SpiralBench {
		sb := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: name, UID: types.UID(name + "-uid"),
			Labels: map[string]string{sbv1.LabelFleet: "f", sbv1.LabelFleetKind: kind, sbv1.LabelFleetRound: "1"}}}
		sb.Status.Phase = phase
		if len(nodes) == 1 {
			sb.Spec.Topology.Placement = &sbv1.Placement{NodeName: nodes[0]}
		} else {
			sb.Spec.Topology.Mode = sbv1.TopologyCrossNode
			sb.Spec.Topology.Server.Placement = &sbv1.Placement{NodeName: nodes[0]}
			sb.Spec.Topology.Client.Placement = &sbv1.Placement{NodeName: nodes[1]}
		}
		return sb
	}
	benches := []*sbv1.SpiralBench{
		bench("passed", fleet.KindRound, sbv1.PhaseCompleted, "a"),
		bench("passed-isolate", fleet.KindIsolate, sbv1.PhaseFailed, "a", "b"),
		bench("failed", fleet.KindRound, sbv1.PhaseCompleted, "c"),
		bench("running", fleet.KindRound, sbv1.PhaseRunning, "a"),
		bench("pair-half-running", fleet.KindRound, sbv1.PhaseCompleted, "a", "d"),
		bench("upgrade", fleet.KindUpgrade, sbv1.PhaseCompleted, "a"),
		bench("remade", fleet.KindRound, sbv1.PhaseCompleted, "b"),
		bench("upload-owed", fleet.KindRound, sbv1.PhaseCompleted, "b"),
		bench("uploaded", fleet.KindRound, sbv1.PhaseCompleted, "b"),
	}
	for _, sb := range benches[len(benches)-2:] {
		sb.Spec.Results = &sbv1.ResultsSpec{Bucket: "runs"}
	}
	meta.SetStatusCondition(&benches[len(benches)-1].Status.Conditions, metav1.Condition{Type: sbv1.ConditionResultsUploaded, Status: metav1.ConditionTrue, Reason: "Uploaded"})
	rows := map[string]*sbv1.FleetNode{
		"a": {Name: "a", Verdict: sbv1.NodePassed}, "b": {Name: "b", Verdict: sbv1.NodePassed},
		"c": {Name: "c", Verdict: sbv1.NodeFailed}, "d": {Name: "d", Verdict: sbv1.NodeRunning},
	}
	for _, factChecks := range []bool{false, true} {
		var objs []client.Object
		for _, sb := range benches {
			objs = append(objs, sb.DeepCopy())
		}
		c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(objs...).Build()
		view := map[string]*sbv1.SpiralBench{}
		for _, sb := range benches {
			read := &sbv1.SpiralBench{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(sb), read); err != nil {
				t.Fatal(err)
			}
			if sb.Name == "remade" { // the view read an object deleted and made again since
				read.UID, read.ResourceVersion = "deleted-since", "1"
			}
			view[sb.Name] = read
		}
		r := &Reconciler{Client: c, APIReader: c}
		f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"}}
		if factChecks {
			f.Spec.FactChecks = &sbv1.FactChecksSpec{}
		}
		if err := r.deleteJudgedBenches(context.Background(), &fleetView{f: f, rows: rows, benches: view}); err != nil {
			t.Fatal(err)
		}
		var left sbv1.SpiralBenchList
		if err := c.List(context.Background(), &left); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, sb := range left.Items {
			got[sb.Name] = true
		}
		want := map[string]bool{"failed": true, "running": true, "pair-half-running": true, "upgrade": true, "remade": true, "upload-owed": true}
		if factChecks {
			want["passed"], want["passed-isolate"], want["uploaded"] = true, true, true
		}
		if len(got) != len(want) {
			t.Errorf("fact checks %v: left %v, want %v", factChecks, got, want)
		}
		for name := range want {
			if !got[name] {
				t.Errorf("fact checks %v: %s was deleted", factChecks, name)
			}
		}
	}
}
