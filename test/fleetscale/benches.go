package fleetscale

import (
	"context"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// benchRecorder keeps every bench it sees over the run: a fleet deletes a passed node's
// benches once its verdict is written, so the check cannot list them at the end.
type benchRecorder struct {
	mu      sync.Mutex
	benches map[types.UID]*benchSeen
	// largest is the largest finished bench seen, as JSON.
	largest []byte
}

// benchSeen is what the check reads of one bench: the node and step it ran, whether it
// finished, and its cells' attempts.
type benchSeen struct {
	key      string
	finished bool
	attempts int
}

func newBenchRecorder() *benchRecorder { return &benchRecorder{benches: map[types.UID]*benchSeen{}} }

func (r *benchRecorder) watch(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (func(), error) {
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{namespace: {}}})
	if err != nil {
		return nil, err
	}
	inf, err := c.GetInformer(ctx, &sbv1.SpiralBench{})
	if err != nil {
		return nil, err
	}
	see := func(obj any) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if sb, ok := obj.(*sbv1.SpiralBench); ok {
			r.see(sb)
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: see, UpdateFunc: func(_, n any) { see(n) }, DeleteFunc: see,
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() { _ = c.Start(ctx) }()
	c.WaitForCacheSync(ctx)
	return cancel, nil
}

func (r *benchRecorder) see(sb *sbv1.SpiralBench) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.benches[sb.UID]
	if s == nil {
		s = &benchSeen{}
		if p := sb.Spec.Topology.Placement; p != nil {
			s.key = p.NodeName + stepSuffix(sb)
		}
		r.benches[sb.UID] = s
	}
	attempts := 0
	for _, cell := range sb.Status.CellResults {
		attempts += int(cell.Attempts)
	}
	s.attempts = max(s.attempts, attempts)
	if p := sb.Status.Phase; !s.finished && (p == sbv1.PhaseCompleted || p == sbv1.PhaseFailed) {
		s.finished = true
		if data, err := json.Marshal(sb); err == nil && len(data) > len(r.largest) {
			r.largest = data
		}
	}
}

// finished counts the benches seen finished.
func (r *benchRecorder) finished() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.benches {
		if s.finished {
			n++
		}
	}
	return n
}

// seen returns the benches seen, and the largest finished one as JSON.
func (r *benchRecorder) seen() ([]benchSeen, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]benchSeen, 0, len(r.benches))
	for _, s := range r.benches {
		out = append(out, *s)
	}
	return out, r.largest
}
