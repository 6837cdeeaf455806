package fleetctrl

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A verdict past its validity window says Expired (and when it expired); one still valid is
// kept, and the step waits until it would expire.
func TestExpireTurnsOldVerdictsExpired(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	r := &Reconciler{Now: func() time.Time { return now }}
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	v := &fleetView{f: &sbv1.SpiralBenchFleet{}, rows: map[string]*sbv1.FleetNode{
		"old":   {Name: "old", Verdict: sbv1.NodeFailed, ValidUntil: at(-time.Minute)},
		"fresh": {Name: "fresh", Verdict: sbv1.NodePassed, ValidUntil: at(2 * time.Hour)},
		"never": {Name: "never", Verdict: sbv1.NodePassed},
		"busy":  {Name: "busy", Verdict: sbv1.NodeRunning, ValidUntil: at(-time.Hour)},
	}}
	wait := r.expire(context.Background(), v)
	if v.rows["old"].Verdict != sbv1.NodeExpired || !strings.Contains(v.rows["old"].Reason, "expired at 2026-11-26T11:59:00Z") {
		t.Errorf("old %+v", v.rows["old"])
	}
	if v.rows["fresh"].Verdict != sbv1.NodePassed || v.rows["never"].Verdict != sbv1.NodePassed || v.rows["busy"].Verdict != sbv1.NodeRunning {
		t.Errorf("rows %+v %+v %+v", v.rows["fresh"], v.rows["never"], v.rows["busy"])
	}
	if wait != 2*time.Hour {
		t.Errorf("wait %s, want 2h", wait)
	}
}
