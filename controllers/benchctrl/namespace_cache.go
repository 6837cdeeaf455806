package benchctrl

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// namespaceTTL is how long a namespace read for the bench policy is reused. The policy reads
// its labels (Pod Security level, spiralbench.io/privileged): a change reaches the next
// attempt within this long. Reading it for every attempt cost a request per bench, which at
// fleet scale is a request per node and step (docs/benchmarks/fleet.md).
const namespaceTTL = 30 * time.Second

// namespaceCache keeps namespaces read through the API reader for namespaceTTL; the manager
// may only get namespaces (no cache of every namespace, hence no informer).
type namespaceCache struct {
	mu   sync.Mutex
	read map[string]cachedNamespace
	now  func() time.Time
}

type cachedNamespace struct {
	ns *corev1.Namespace
	at time.Time
}

func newNamespaceCache() *namespaceCache {
	return &namespaceCache{read: map[string]cachedNamespace{}, now: time.Now}
}

// get returns the namespace, read again once its copy is older than namespaceTTL. A nil
// cache reads every time.
func (c *namespaceCache) get(ctx context.Context, r client.Reader, name string) (*corev1.Namespace, error) {
	if c != nil {
		c.mu.Lock()
		hit, ok := c.read[name]
		c.mu.Unlock()
		if ok && c.now().Sub(hit.at) < namespaceTTL {
			return hit.ns.DeepCopy(), nil
		}
	}
	var ns corev1.Namespace
	if err := r.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
		return nil, err
	}
	if c != nil {
		c.mu.Lock()
		c.read[name] = cachedNamespace{ns: ns.DeepCopy(), at: c.now()}
		c.mu.Unlock()
	}
	return &ns, nil
}
