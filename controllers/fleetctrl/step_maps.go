package fleetctrl

import (
	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// stepMaps are the maps of a fleet's step (fleetView), kept in the fleet's memo and emptied as
// the next step begins. A step fills maps as large as its pool and round (10,000 rows, 30,000
// benches), and made afresh they were megabytes of garbage a step, a step every few seconds:
// the collector's work that grew with the pool. Only one step of a fleet runs at a time, and
// nothing keeps a view's maps past its step (rows are written as copies, benches and nodes are
// the cache's), so the next step may reuse them.
type stepMaps struct {
	pool    map[string]*corev1.Node
	rows    map[string]*sbv1.FleetNode
	loaded  map[string]loadedRow
	benches map[string]*sbv1.SpiralBench
	busy    map[string]bool
	claimed map[string]bool
	checks  map[string]*corev1.Pod
	next    map[string]int
	isolate map[string]string
	foreign map[string]string
}

// begin empties the maps for a new step and hands them to v.
func (s *stepMaps) begin(v *fleetView) {
	s.pool, s.rows, s.loaded, s.benches = emptied(s.pool), emptied(s.rows), emptied(s.loaded), emptied(s.benches)
	s.busy, s.claimed, s.checks = emptied(s.busy), emptied(s.claimed), emptied(s.checks)
	s.next, s.isolate, s.foreign = emptied(s.next), emptied(s.isolate), emptied(s.foreign)
	v.pool, v.rows, v.loaded, v.benches = s.pool, s.rows, s.loaded, s.benches
	v.busyNodes, v.claimed, v.checks = s.busy, s.claimed, s.checks
	v.next, v.isolate, v.foreign = s.next, s.isolate, s.foreign
}

// emptied is m with no entries and its room kept, or a new map.
func emptied[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	clear(m)
	return m
}
