package benchkind

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestGPUCopyPeerFlags(t *testing.T) {
	p, _ := Lookup(sbv1.TransportGPUCopy)
	flags := func(o *sbv1.GPUCopySpec) []string {
		spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportGPUCopy, GPUCopy: o}
		ranks, _ := Ranks(spec)
		return p.Flags(spec, p.Headline, ranks[0])
	}
	// the CRD's defaults when the spec names none
	a := flags(nil)
	for flag, want := range map[string]string{"--peer-methods": "ce,sm", "--peer-modes": "uni,bi",
		"--peer-bytes": "268435456", "--aggregate": "h2d,d2h"} {
		if got := flagValue(a, flag); got != want {
			t.Errorf("default %s = %q, want %q", flag, got, want)
		}
	}
	a = flags(&sbv1.GPUCopySpec{PeerMethods: []sbv1.CopyPeerMethod{sbv1.CopyPeerSM}, PeerModes: []sbv1.CopyPeerMode{sbv1.CopyPeerBidirectional},
		PeerBytes: []int64{8 * MiB, 1 << 30}, Aggregate: []sbv1.CopyAggregateDirection{"None"}})
	for flag, want := range map[string]string{"--peer-methods": "sm", "--peer-modes": "bi",
		"--peer-bytes": "8388608,1073741824", "--aggregate": "none"} {
		if got := flagValue(a, flag); got != want {
			t.Errorf("%s = %q, want %q", flag, got, want)
		}
	}
	if got := flagValue(flags(&sbv1.GPUCopySpec{PeerMethods: []sbv1.CopyPeerMethod{sbv1.CopyPeerNone}}), "--peer-methods"); got != "none" {
		t.Errorf("--peer-methods = %q for None", got)
	}
}
