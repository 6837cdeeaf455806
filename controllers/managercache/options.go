// Package managercache is what the manager's informer cache keeps of each kind: the manager
// and the integration suite's manager build their caches from it alike.
package managercache

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	"github.com/spiralbench/spiralbench/pkg/sharedstrings"
)

// Options are the cache's transforms. Cached objects lose their managedFields, which no
// controller reads: at 10,000 nodes the cache holds tens of thousands of benches and results
// (docs/benchmarks/fleet.md). Pods not SpiralBench's are cached slim (benchctrl.SlimForeignPods):
// the fleet's idle check reads every pod of a node, and a large cluster has hundreds of
// thousands. Nodes are cached without what nothing reads (benchctrl.SlimNodes: images, system
// info). The kinds a fleet's round has one of per node and step (benches, attempt results, node
// results) share the strings they repeat (pkg/sharedstrings): near the Go memory limit every
// live byte costs collector time.
func Options() cache.Options {
	return cache.Options{DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:                    {Transform: benchctrl.SlimForeignPods},
			&corev1.Node{}:                   {Transform: benchctrl.SlimNodes},
			&sbv1.SpiralBench{}:              {Transform: strippedAndShared},
			&sbv1.SpiralBenchAttemptResult{}: {Transform: strippedAndShared},
			&sbv1.SpiralBenchNodeResult{}:    {Transform: strippedAndShared},
		}}
}

// strippedAndShared drops an object's managedFields (as for every kind) and shares its strings.
func strippedAndShared(obj any) (any, error) {
	obj, err := cache.TransformStripManagedFields()(obj)
	if err != nil {
		return obj, err
	}
	return sharedstrings.Transform(obj)
}
