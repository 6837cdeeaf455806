package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestFleetCollectorDerivesNodeVerdictsAndReasons(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = sbv1.AddToScheme(scheme)
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: "q"}}
	f.Spec.Stragglers = &sbv1.StragglerSpec{Metric: "TxMbps"}
	f.Status.Round = 3
	result := func(round int32, row sbv1.FleetNode) *sbv1.SpiralBenchNodeResult {
		return &sbv1.SpiralBenchNodeResult{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d-%s", round, row.Name), Namespace: "q"},
			Fleet: "pool", Round: round, Result: row}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(f,
		result(3, sbv1.FleetNode{Name: "a", Verdict: sbv1.NodePassed, Class: "cpu-only", Step: "tcp", ValidUntil: &metav1.Time{Time: time.Unix(1800000000, 0)}, Value: ptr.To[int64](94000)}),
		result(3, sbv1.FleetNode{Name: "b", Verdict: sbv1.NodeFailed, Class: "cpu-only", Step: "floor", Reasons: []string{"StepFailed:floor", "NoReference"}}),
		result(2, sbv1.FleetNode{Name: "a", Verdict: sbv1.NodeFailed, Reasons: []string{"StepFailed:tcp"}}), // an earlier round: not a series
	).WithStatusSubresource(f).Build()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&fleetCollector{benchCollector{reader: c, now: time.Now}})
	want := `
# HELP spiralbench_fleet_node_reason 1 for each reason code of a node's verdict (docs/qualification.md), with the step it concerns.
# TYPE spiralbench_fleet_node_reason gauge
spiralbench_fleet_node_reason{code="NoReference",fleet="pool",namespace="q",node="b",step=""} 1
spiralbench_fleet_node_reason{code="StepFailed",fleet="pool",namespace="q",node="b",step="floor"} 1
# HELP spiralbench_fleet_node_value A pool node's headline figure this round (the fleet's stragglers or baseline metric, else RxMbps), in the metric's unit; absent before it has one.
# TYPE spiralbench_fleet_node_value gauge
spiralbench_fleet_node_value{fleet="pool",metric="TxMbps",namespace="q",node="a"} 94000
# HELP spiralbench_fleet_node_verdict_valid_until_seconds Unix time at which a node's verdict expires (verdicts.validSeconds).
# TYPE spiralbench_fleet_node_verdict_valid_until_seconds gauge
spiralbench_fleet_node_verdict_valid_until_seconds{fleet="pool",namespace="q",node="a"} 1.8e+09
# HELP spiralbench_fleet_round The fleet's current (or last) round number.
# TYPE spiralbench_fleet_round gauge
spiralbench_fleet_round{fleet="pool",namespace="q"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "spiralbench_fleet_node_reason", "spiralbench_fleet_node_value", "spiralbench_fleet_node_verdict_valid_until_seconds", "spiralbench_fleet_round"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_fleet_nodes"); n != 8 {
		t.Errorf("%d verdict count series, want one per verdict (8)", n)
	}
	if n := testutil.CollectAndCount(reg, "spiralbench_fleet_node_verdict"); n != 2 {
		t.Errorf("%d node verdict series", n)
	}
}
