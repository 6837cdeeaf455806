package benchctrl

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// countingReader counts the reads that reach the (fake) apiserver.
type countingReader struct {
	client.Reader
	gets int
}

func (c *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.gets++
	return c.Reader.Get(ctx, key, obj, opts...)
}

// A namespace read for the bench policy is reused for namespaceTTL, then read again, so a
// label an admin changes reaches the next attempt within that long.
func TestNamespaceReadsAreReusedForTheirTTL(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	c := fake.NewClientBuilder().WithObjects(ns).Build()
	reader := &countingReader{Reader: c}
	clock := time.Now()
	cache := newNamespaceCache()
	cache.now = func() time.Time { return clock }
	for range 3 {
		got, err := cache.get(context.Background(), reader, "lab")
		if err != nil || got.Labels["pod-security.kubernetes.io/enforce"] != "baseline" {
			t.Fatalf("read: %v %+v", err, got)
		}
	}
	if reader.gets != 1 {
		t.Errorf("three reads within the TTL reach the apiserver %d times, want 1", reader.gets)
	}
	ns.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	if err := c.Update(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(namespaceTTL)
	if got, _ := cache.get(context.Background(), reader, "lab"); reader.gets != 2 || got.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("after the TTL the namespace is read again: %d reads, label %q", reader.gets, got.Labels["pod-security.kubernetes.io/enforce"])
	}
	var none *namespaceCache
	if _, err := none.get(context.Background(), reader, "lab"); err != nil || reader.gets != 3 {
		t.Errorf("a nil cache reads every time: %v, %d reads", err, reader.gets)
	}
}
