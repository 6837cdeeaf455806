package fleetctrl

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A bench's mark covers its spec as the apiserver stores it, defaults included, and a
// server-side dry run tells what that is: one request a bench, a tenth of what a node of a
// suite costs. The fleet's benches of one step differ only in the nodes they are placed on,
// and the apiserver's defaults depend on which fields are present, never on a node's name, so
// one dry run per template and placement shape serves the step: the stored spec with the
// node names put in. Kept a few minutes, so a CRD upgraded under a running manager (new
// defaults) is seen again soon.

// storedSpecFor is how long a dry run's answer serves.
const storedSpecFor = 5 * time.Minute

// maxStoredSpecs bounds the remembered shapes (steps x GPU counts x placement modes).
const maxStoredSpecs = 256

type storedSpecs struct {
	mu sync.Mutex
	m  map[string]storedSpec
}

type storedSpec struct {
	spec sbv1.SpiralBenchSpec
	at   time.Time
}

// placementNames are the node names of a bench's placement, in a fixed order.
func placementNames(s *sbv1.SpiralBenchSpec) []*string {
	var out []*string
	for _, p := range []*sbv1.Placement{s.Topology.Placement, s.Topology.Server.Placement, s.Topology.Client.Placement} {
		if p != nil {
			out = append(out, &p.NodeName)
		}
	}
	return out
}

// shapeOf is sb's spec with its node names replaced by placeholders (present, as the real ones are).
func shapeOf(spec *sbv1.SpiralBenchSpec) *sbv1.SpiralBenchSpec {
	shape := spec.DeepCopy()
	for i, name := range placementNames(shape) {
		*name = "node-" + string(rune('a'+i))
	}
	return shape
}

// storedSpec is the spec the apiserver would store for sb (defaults included), from a dry run
// of sb's shape at most every storedSpecFor; nil when sb already exists (the caller's create
// then finds it).
func (r *Reconciler) storedSpec(ctx context.Context, sb *sbv1.SpiralBench) (*sbv1.SpiralBenchSpec, error) {
	b, err := json.Marshal(shapeOf(&sb.Spec))
	if err != nil {
		return nil, err
	}
	key, now := string(b), r.now()
	r.specs.mu.Lock()
	got, ok := r.specs.m[key]
	r.specs.mu.Unlock()
	if !ok || now.Sub(got.at) > storedSpecFor {
		dry := sb.DeepCopy()
		if err := r.Create(ctx, dry, client.DryRunAll); apierrors.IsAlreadyExists(err) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		if len(placementNames(&dry.Spec)) != len(placementNames(&sb.Spec)) {
			return &dry.Spec, nil // defaults placed it elsewhere: this shape is not reused
		}
		got = storedSpec{spec: *shapeOf(&dry.Spec), at: now}
		r.specs.mu.Lock()
		if r.specs.m == nil || len(r.specs.m) >= maxStoredSpecs {
			r.specs.m = map[string]storedSpec{}
		}
		r.specs.m[key] = got
		r.specs.mu.Unlock()
	}
	out := got.spec.DeepCopy()
	names, real := placementNames(out), placementNames(&sb.Spec)
	for i := range names {
		*names[i] = *real[i]
	}
	return out, nil
}
