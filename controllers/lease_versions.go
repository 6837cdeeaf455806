package controllers

import "sync"

// leaseVersions remembers, per node, the resourceVersion of the lease this manager last wrote
// for a holder, so that releasing it can delete it with that version as the precondition
// instead of reading it first (a request per bench, at fleet scale per node and step): a
// version nobody changed since means nobody took the lease over. After a restart, or when the
// precondition fails, the release reads the lease as before.
type leaseVersions struct {
	mu sync.Mutex
	m  map[string]leaseVersion
}

type leaseVersion struct{ holder, version string }

// wrote records the version of a lease just written for holder. Safe on nil (not remembered).
func (l *leaseVersions) wrote(node, holder, version string) {
	if l == nil || version == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]leaseVersion{}
	}
	l.m[node] = leaseVersion{holder, version}
}

// take returns and forgets the version last written for holder on node; false when this
// manager wrote none for that holder since it started.
func (l *leaseVersions) take(node, holder string) (string, bool) {
	if l == nil {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[node]
	if !ok || v.holder != holder {
		return "", false
	}
	delete(l.m, node)
	return v.version, true
}
