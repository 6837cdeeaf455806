package integration

import (
	"context"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// createdBenches records each bench of a namespace as its creation left it (the watch's ADDED
// event), before any controller changed it.
type createdBenches struct {
	mu   sync.Mutex
	seen map[string][]string // name -> finalizers at creation
}

func (c *createdBenches) finalizers() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]string, len(c.seen))
	for k, v := range c.seen {
		out[k] = v
	}
	return out
}

// watchCreatedBenches watches the namespace's benches until the test ends.
func watchCreatedBenches(t *testing.T, ns string) *createdBenches {
	t.Helper()
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(context.Background(), &sbv1.SpiralBenchList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	c := &createdBenches{seen: map[string][]string{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if sb, ok := ev.Object.(*sbv1.SpiralBench); ok && ev.Type == watch.Added {
				c.mu.Lock()
				c.seen[sb.Name] = append([]string(nil), sb.Finalizers...)
				c.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { w.Stop(); <-done })
	return c
}
