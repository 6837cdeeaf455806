package fleetctrl

import (
	"context"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// A step reads every bench and row of its round from the cache, and at 10,000 nodes most of
// them have not changed since the step before. The informer gives an object a new pointer on
// every write it sees and never changes what a pointer holds (the cache is read in place,
// never written: pkg/incache), so what a step derived from a pointer (whether the object is the
// fleet's own, which step, round and nodes it names, what a finished bench observed) holds for
// as long as the cache serves that pointer. readMemo keeps those answers from one step to the
// next and forgets, as each step's view begins, every pointer the step before did not meet: it
// holds an old version for one step at most, and a pointer it holds is never reused for another
// object. A finished bench's repeats and observation (the large part) are kept only while steps
// use them, that is until its node's verdict. Nothing in it is a fact a restart needs: an empty
// memo derives everything again.

// readMemo is one fleet's memo; reconciles of one fleet never run at once.
type readMemo struct {
	uid     types.UID // a fleet deleted and made again under its name starts afresh
	gen     uint64
	benches map[*sbv1.SpiralBench]*benchRead
	rows    map[*sbv1.SpiralBenchNodeResult]*rowRead
	// rowBuf holds a step's own copies of its rows (loadRows); the next step writes over them.
	// Nothing keeps a row past its step: what is written is a deep copy (resultObject).
	rowBuf []sbv1.FleetNode
	// maps are the step's maps, emptied as each step begins (step_maps.go).
	maps stepMaps
}

// benchRead is what a step derives from one bench of the fleet's namespace.
type benchRead struct {
	seen uint64
	// own: controlled by the fleet and marked by this manager; the rest is set only then.
	own      bool
	upgrade  bool
	round    int32
	key      string // the step's key in fleetView.benches
	finished bool
	nodes    []string
	// full is the bench with its attempts' repeats attached, kept once every record was read
	// (repeatsOf); observed is fleet.Observe of it. Both are read-only, and dropped by the
	// first step that did not read them (used is the last that did).
	full     *sbv1.SpiralBench
	observed *fleet.Observation
	used     uint64
}

type rowRead struct {
	seen uint64
	own  bool
}

// readMemos are the memos of every fleet, by name.
type readMemos struct{ m sync.Map }

// of is f's memo, begun afresh when f is a new fleet under the name.
func (ms *readMemos) of(f *sbv1.SpiralBenchFleet) *readMemo {
	key := types.NamespacedName{Namespace: f.Namespace, Name: f.Name}
	if m, ok := ms.m.Load(key); ok && m.(*readMemo).uid == f.UID {
		return m.(*readMemo)
	}
	m := &readMemo{uid: f.UID, benches: map[*sbv1.SpiralBench]*benchRead{}, rows: map[*sbv1.SpiralBenchNodeResult]*rowRead{}}
	ms.m.Store(key, m)
	return m
}

// forget drops a deleted fleet's memo.
func (ms *readMemos) forget(fleetName types.NamespacedName) { ms.m.Delete(fleetName) }

// bench is what sb says to fleet f (derived once per pointer).
func (m *readMemo) bench(r *Reconciler, f *sbv1.SpiralBenchFleet, sb *sbv1.SpiralBench) *benchRead {
	if b := m.benches[sb]; b != nil {
		b.seen = m.gen
		return b
	}
	b := &benchRead{seen: m.gen}
	m.benches[sb] = b
	// Not the fleet's, whatever its labels say (createMarked notes one in a step's way).
	if !metav1.IsControlledBy(sb, f) || !benchstate.Trusted(r.Provenance, sb) {
		return b
	}
	kind := sb.Labels[sbv1.LabelFleetKind]
	round, _ := strconv.Atoi(sb.Labels[sbv1.LabelFleetRound])
	b.own, b.upgrade, b.round = true, kind == fleet.KindUpgrade, int32(round)
	b.key = fleetObjectKey(sb)
	b.finished, b.nodes = benchstate.Finished(sb), benchNodes(sb)
	return b
}

// ownsRow says whether res is the fleet's own row (derived once per pointer).
func (m *readMemo) ownsRow(r *Reconciler, f *sbv1.SpiralBenchFleet, res *sbv1.SpiralBenchNodeResult) bool {
	if w := m.rows[res]; w != nil {
		w.seen = m.gen
		return w.own
	}
	own := r.ownedBy(res, f)
	m.rows[res] = &rowRead{seen: m.gen, own: own}
	return own
}

// rowBuffer is the empty row buffer, with room for n rows without growing (a row pointer taken
// into it stays valid for the whole step).
func (m *readMemo) rowBuffer(n int) []sbv1.FleetNode {
	if cap(m.rowBuf) < n {
		m.rowBuf = make([]sbv1.FleetNode, 0, n+n/8)
	}
	return m.rowBuf[:0]
}

// sweep forgets what the last step did not meet (and the repeats it did not use), and starts
// this step's generation.
func (m *readMemo) sweep() {
	for p, b := range m.benches {
		switch {
		case b.seen != m.gen:
			delete(m.benches, p)
		case b.full != nil && b.used != m.gen:
			b.full, b.observed = nil, nil
		}
	}
	for p, w := range m.rows {
		if w.seen != m.gen {
			delete(m.rows, p)
		}
	}
	m.gen++
}

// observed is fleet.Observe of the finished bench sb with its repeats, kept from step to step
// once every record of its attempts was read.
func (r *Reconciler) observed(ctx context.Context, v *fleetView, sb *sbv1.SpiralBench) fleet.Observation {
	b := v.memo.benchOf(sb)
	if b != nil && b.observed != nil {
		b.used = v.memo.gen
		return *b.observed
	}
	o := fleet.Observe(r.repeatsOf(ctx, v, sb))
	if b != nil && b.full != nil {
		b.observed, b.used = &o, v.memo.gen
	}
	return o
}

// benchOf is what the memo holds for sb; nil for a bench this step's view did not read (one
// the step wrote itself) or without a memo.
func (m *readMemo) benchOf(sb *sbv1.SpiralBench) *benchRead {
	if m == nil {
		return nil
	}
	return m.benches[sb]
}
