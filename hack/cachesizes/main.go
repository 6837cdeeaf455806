// Command cachesizes says what each object of a fleet's round costs in the manager's informer
// cache: it decodes the JSON lists that fleet-scale.sh writes with DUMP_OBJECTS=DIR, passes each
// object through the cache's transforms (controllers/managercache) and prints the Go heap each
// kind's objects hold, per object and in all. Rows marked "if" are levers, not what runs: the
// same benches with a part taken away, to size what taking it out of the cache could save.
//
//	DUMP_OBJECTS=/tmp/objs NODES=1000 MAX_PARALLEL=500 SUITE=Quick hack/bench/fleet-scale.sh
//	go run ./hack/cachesizes /tmp/objs
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/managercache"
	"github.com/spiralbench/spiralbench/test/fleetscale"
)

// variant is one row: a kind's objects, possibly changed before they are cached.
type variant struct {
	name, file string
	newObj     func() client.Object
	change     func(client.Object)
}

var variants = []variant{
	{"SpiralBench, as cached", "benches.json", func() client.Object { return &sbv1.SpiralBench{} }, nil},
	{"SpiralBench, if without its spec", "benches.json", func() client.Object { return &sbv1.SpiralBench{} },
		func(o client.Object) { o.(*sbv1.SpiralBench).Spec = sbv1.SpiralBenchSpec{} }},
	{"SpiralBench, if without spec and status.environment", "benches.json", func() client.Object { return &sbv1.SpiralBench{} },
		func(o client.Object) {
			sb := o.(*sbv1.SpiralBench)
			sb.Spec, sb.Status.Environment = sbv1.SpiralBenchSpec{}, nil
		}},
	{"SpiralBench, if only its metadata", "benches.json", func() client.Object { return &sbv1.SpiralBench{} },
		func(o client.Object) {
			sb := o.(*sbv1.SpiralBench)
			sb.Spec, sb.Status = sbv1.SpiralBenchSpec{}, sbv1.SpiralBenchStatus{}
		}},
	{"SpiralBench, if empty (the Go struct alone)", "benches.json", func() client.Object { return &sbv1.SpiralBench{} },
		func(o client.Object) { *o.(*sbv1.SpiralBench) = sbv1.SpiralBench{} }},
	{"SpiralBenchAttemptResult, as cached", "attempts.json", func() client.Object { return &sbv1.SpiralBenchAttemptResult{} }, nil},
	{"SpiralBenchNodeResult, as cached", "results.json", func() client.Object { return &sbv1.SpiralBenchNodeResult{} }, nil},
	{"Node, as cached", "nodes.json", func() client.Object { return &corev1.Node{} }, nil},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cachesizes DIR (written by fleet-scale.sh with DUMP_OBJECTS=DIR)")
		os.Exit(2)
	}
	dir := os.Args[1]
	fmt.Println("| objects | count | JSON bytes each (median) | Go heap bytes each, cached | in all |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, v := range variants {
		// Read again for each row: a row is measured with only its own dump alive (the other
		// kinds' dumps kept alive beside it read attempt records 8 % and results 25 % higher).
		items, err := fleetscale.ReadDumped(filepath.Join(dir, v.file))
		if err != nil {
			fmt.Fprintln(os.Stderr, "cachesizes:", err)
			os.Exit(1)
		}
		each, err := heapEach(items, v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cachesizes:", v.name+":", err)
			os.Exit(1)
		}
		fmt.Printf("| %s | %d | %d | %d | %.1f MB |\n", v.name, len(items), medianLen(items), each, float64(each)*float64(len(items))/1e6)
	}
}

// heapEach decodes and caches every item as the manager's cache would, and returns the heap
// the cached objects hold, per object: the median of five passes after one not counted. A
// process's first objects read off (the decoders' and the string pool's first growth: a
// quarter low for 2,000 small benches), and single passes after it vary by up to a tenth.
func heapEach(items []json.RawMessage, v variant) (int, error) {
	passes := make([]int, 0, 5)
	for i := 0; i < 6; i++ {
		each, err := heapOnce(items, v)
		if err != nil {
			return 0, err
		}
		if i > 0 {
			passes = append(passes, each)
		}
	}
	sort.Ints(passes)
	return passes[len(passes)/2], nil
}

func heapOnce(items []json.RawMessage, v variant) (int, error) {
	transform := cacheTransform(v.newObj())
	kept := make([]any, 0, len(items))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, it := range items {
		o := v.newObj()
		if err := json.Unmarshal(it, o); err != nil {
			return 0, err
		}
		if v.change != nil {
			v.change(o)
		}
		cached, err := transform(o)
		if err != nil {
			return 0, err
		}
		kept = append(kept, cached)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return int(after.HeapAlloc-before.HeapAlloc) / len(items), nil
}

// cacheTransform is the manager cache's transform of obj's kind (its own, else the default).
func cacheTransform(obj client.Object) func(any) (any, error) {
	opts := managercache.Options()
	for k, by := range opts.ByObject {
		if reflect.TypeOf(k) == reflect.TypeOf(obj) && by.Transform != nil {
			return by.Transform
		}
	}
	return opts.DefaultTransform
}

func medianLen(items []json.RawMessage) int {
	n := make([]int, len(items))
	for i, it := range items {
		n[i] = len(it)
	}
	sort.Ints(n)
	return n[len(n)/2]
}
