package benchctrl

import (
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
)

// leaseVersions remembers, per node, the resourceVersion of the lease this manager last wrote
// for a holder, so that releasing it can delete it with that version as the precondition
// instead of reading it first (a request per bench, at fleet scale per node and step): a
// version nobody changed since means nobody took the lease over. After a restart, or when the
// precondition fails, the release reads the lease as before.
//
// It also remembers the leases a finished bench left in place (lease_handover.go): the next
// bench on the node takes such a lease over with one write, without reading it.
type leaseVersions struct {
	mu sync.Mutex
	m  map[string]leaseVersion
}

type leaseVersion struct {
	holder, version string
	transitions     int32
	// left: the holder has finished and left the lease for the next bench.
	left bool
}

// wrote records the version of a lease just written for holder. Safe on nil (not remembered).
func (l *leaseVersions) wrote(node, holder string, lease *coordinationv1.Lease) {
	if l == nil || lease.ResourceVersion == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]leaseVersion{}
	}
	l.m[node] = leaseVersion{holder: holder, version: lease.ResourceVersion, transitions: ptr.Deref(lease.Spec.LeaseTransitions, 0)}
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

// leave marks the lease last written for holder on node as left by a finished holder.
func (l *leaseVersions) leave(node, holder string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.m[node]; ok && v.holder == holder {
		v.left = true
		l.m[node] = v
	}
}

// leftOn returns the lease a finished holder left on node, as this manager last wrote it.
func (l *leaseVersions) leftOn(node string) (leaseVersion, bool) {
	v, ok := l.last(node)
	return v, ok && v.left
}

// last returns what this manager last wrote of node's lease, for whichever holder.
func (l *leaseVersions) last(node string) (leaseVersion, bool) {
	if l == nil {
		return leaseVersion{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[node]
	return v, ok
}

// deleted records that this manager deleted node's lease as it was when last written (was):
// it has no holder, so no bench's release needs to read it. A write remembered since (a new
// lease on the node) stays.
func (l *leaseVersions) deleted(node string, was leaseVersion) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.m[node]; ok && cur == was {
		l.m[node] = leaseVersion{}
	}
}

// forget drops what is remembered of node's lease (a write based on it failed).
func (l *leaseVersions) forget(node string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, node)
}
