package integration

import (
	"context"
	"sort"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// benchLedger records every bench of every namespace from the suite's start: the finalizers
// its creation gave it (the watch's ADDED event, before any controller changed it) and its
// last state seen. A fleet deletes a passed node's benches once its verdict is written, so
// what a fleet benched is counted from here, not from a list at the round's end.
type benchLedger struct {
	mu    sync.Mutex
	byUID map[types.UID]*ledgerEntry
}

type ledgerEntry struct {
	created []string // finalizers at creation
	last    *sbv1.SpiralBench
}

var ledger = &benchLedger{byUID: map[types.UID]*ledgerEntry{}}

// record follows the benches until ctx ends, watching again from the last version seen when
// the apiserver closes a watch.
func (l *benchLedger) record(ctx context.Context) error {
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme()})
	if err != nil {
		return err
	}
	var list sbv1.SpiralBenchList
	if err := wc.List(ctx, &list); err != nil {
		return err
	}
	rv := list.ResourceVersion
	w, err := wc.Watch(ctx, &sbv1.SpiralBenchList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
	if err != nil {
		return err
	}
	go func() {
		for {
			for ev := range w.ResultChan() {
				if sb, ok := ev.Object.(*sbv1.SpiralBench); ok {
					l.see(sb, ev.Type == watch.Added)
					rv = sb.ResourceVersion
				}
			}
			if ctx.Err() != nil {
				return
			}
			if w, err = wc.Watch(ctx, &sbv1.SpiralBenchList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}}); err != nil {
				return
			}
		}
	}()
	return nil
}

func (l *benchLedger) see(sb *sbv1.SpiralBench, added bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.byUID[sb.UID]
	if e == nil {
		e = &ledgerEntry{}
		l.byUID[sb.UID] = e
	}
	if added {
		e.created = append([]string(nil), sb.Finalizers...)
	}
	e.last = sb
}

// seen are the last states of the namespace's benches that match, sorted by name.
func (l *benchLedger) seen(ns string, match func(*sbv1.SpiralBench) bool) []*ledgerEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*ledgerEntry
	for _, e := range l.byUID {
		if e.last.Namespace == ns && match(e.last) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].last.Name < out[j].last.Name })
	return out
}

// createdBenches are a namespace's benches as their creation left them.
type createdBenches struct{ ns string }

// finalizers are the finalizers each bench of the namespace was created with, by name.
func (c createdBenches) finalizers() map[string][]string {
	out := map[string][]string{}
	for _, e := range ledger.seen(c.ns, func(*sbv1.SpiralBench) bool { return true }) {
		out[e.last.Name] = e.created
	}
	return out
}

// watchCreatedBenches reads the namespace's benches from the ledger.
func watchCreatedBenches(t *testing.T, ns string) createdBenches {
	t.Helper()
	return createdBenches{ns: ns}
}

// fleetBenchesNow are the fleet's benches there now.
func fleetBenchesNow(t *testing.T, ns, fleet string) []sbv1.SpiralBench {
	t.Helper()
	var list sbv1.SpiralBenchList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"spiralbench.io/fleet": fleet}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// fleetBenches are every bench the fleet made: those there now, then those deleted since the
// ledger saw them (a passed node's).
func fleetBenches(t *testing.T, ns, fleet string) []sbv1.SpiralBench {
	t.Helper()
	list := sbv1.SpiralBenchList{Items: fleetBenchesNow(t, ns, fleet)}
	there := map[types.UID]bool{}
	for _, sb := range list.Items {
		there[sb.UID] = true
	}
	for _, e := range ledger.seen(ns, func(sb *sbv1.SpiralBench) bool { return sb.Labels["spiralbench.io/fleet"] == fleet }) {
		if !there[e.last.UID] {
			list.Items = append(list.Items, *e.last.DeepCopy())
		}
	}
	return list.Items
}
