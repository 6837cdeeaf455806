package fleetctrl

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// A step's wait for the next is ten times the last step, bounded by the pool's size: a small
// fleet waits at most 2 s, a 10,000-node fleet up to 10 s, so a large round takes no more
// steps than a small one.
func TestBatchDelayIsBoundedByThePoolsSize(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "pool"}
	for _, c := range []struct {
		name string
		last *stepCost
		want time.Duration
	}{
		{"no step yet", nil, 0},
		{"a quick step of a small pool", &stepCost{took: 50 * time.Millisecond, pool: 100}, 500 * time.Millisecond},
		{"a slow step of a small pool", &stepCost{took: time.Second, pool: 100}, 2 * time.Second},
		{"a slow step of 5,000 nodes", &stepCost{took: time.Second, pool: 5000}, 5 * time.Second},
		{"a slow step of 10,000 nodes", &stepCost{took: 3 * time.Second, pool: 10000}, 10 * time.Second},
		{"a quick step of 10,000 nodes", &stepCost{took: 300 * time.Millisecond, pool: 10000}, 3 * time.Second},
	} {
		r := &Reconciler{}
		if c.last != nil {
			r.stepTime.Store(key, *c.last)
		}
		if got := r.batchDelay(key); got != c.want {
			t.Errorf("%s: waits %v, want %v", c.name, got, c.want)
		}
	}
}
