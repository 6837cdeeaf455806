package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// searchSummaryJSON is a UDP pod's termination message after a rate search: the client carries
// what the search found, the server only its last (verification) trial.
func searchSummaryJSON(role string, ndr int64) string {
	s := summaryJSON(role, "Valid", ndr)
	s = strings.Replace(s, `"transport":"tcp"`, `"transport":"udp"`, 1)
	if role != "client" {
		return s
	}
	return strings.TrimSuffix(s, "}") + fmt.Sprintf(`,"search":{"ndr_mbps":%d,"ndr_below_lower":false,"ndr_at_upper":false,`+
		`"pdr_ppm":1000,"pdr_mbps":%d,"pdr_below_lower":false,"verified":true,"lower_mbps":1,"upper_mbps":20000,"resolution_mbps":200,`+
		`"search_trials":4,"trials":[[20000,100,50,500000,"loss"],[%d,100,100,0,"pass"]]}}`, ndr, ndr+150, ndr)
}

// A bench with run.search: the pods get the search flags, each repeat's findings land in status,
// the cell reports the NDR and PDR as mean ± std over the repeats, and NDR rules decide Passed.
func TestSearchFindingsReachStatusAndAcceptance(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "ndr-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("ndr", ns).Transport(sbv1.TransportUDP).Payloads(8000).Pairs(1), 2, 0).
		Rule(sbv1.AcceptanceRule{Name: "ndr-floor", Metric: sbv1.MetricNDRMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 9000}).
		Rule(sbv1.AcceptanceRule{Name: "ndr-target", Metric: sbv1.MetricNDRMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 9500})
	w.Spec.Run.Search = &sbv1.RateSearchSpec{LowerMbps: 1, TrialSeconds: 1, PDRTolerancePPM: ptr.To[int64](1000)}
	sb := onTestNode(w.Obj(), "ndr-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "ndr", summary: func(cell, repeat int, role string) string {
		return searchSummaryJSON(role, []int64{9000, 9400}[repeat])
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	if args := strings.Join(k.clientArgs, " "); !strings.Contains(args, "--search --search-lower-mbps 1 --search-upper-mbps 0 --search-trial-seconds 1") ||
		!strings.Contains(args, "--search-pdr-ppm 1000") {
		t.Errorf("client args lack the search: %s", args)
	}
	c := sb.Status.CellResults[0]
	if len(c.RepeatResults) != 2 || c.RepeatResults[1].Search == nil || c.RepeatResults[1].Search.NDRMbps != 9400 || !c.RepeatResults[1].Search.Verified {
		t.Fatalf("repeat results: %+v", c.RepeatResults)
	}
	// mean 9200, sample std of 9000 and 9400 = 283; PDR 150 above each
	if s := c.Search; s == nil || s.NDRMbps.Mean != 9200 || s.NDRMbps.StdDev != 283 || s.PDRMbps == nil || s.PDRMbps.Mean != 9350 {
		t.Errorf("cell search statistics: %+v", c.Search)
	}
	p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	if p == nil || p.Status != metav1.ConditionFalse || !strings.Contains(p.Message, "ndr-target: cell 0 NDRMbps = 9200, want >= 9500") ||
		strings.Contains(p.Message, "ndr-floor: cell 0 NDRMbps = 9200, want") {
		t.Errorf("Passed: %+v", p)
	}
}
