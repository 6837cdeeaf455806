package benchctrl

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// staleReads remembers, per bench, the resourceVersion its last status write was based on,
// until the manager's cache shows a newer one. A reconcile that reads that version again
// (woken by its own pod deletions or creations before the write reached the cache) would
// retake the step on a stale read: create what exists, read what is gone, and lose its write
// on a conflict, five wasted requests a bench at fleet scale. It waits for the cache instead.
type staleReads struct {
	mu sync.Mutex
	m  map[types.NamespacedName]string
}

// wrote records that a status write based on version succeeded. Safe on nil (not remembered).
func (s *staleReads) wrote(key types.NamespacedName, basedOn string) {
	if s == nil || basedOn == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[types.NamespacedName]string{}
	}
	s.m[key] = basedOn
}

// stale says whether version is one a status write of this manager has already superseded;
// it forgets the bench once the cache has moved past it (or the bench is gone: version "").
func (s *staleReads) stale(key types.NamespacedName, version string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	basedOn, ok := s.m[key]
	if ok && version == basedOn {
		return true
	}
	delete(s.m, key)
	return false
}
