package benchkind

import (
	"encoding/json"
	"slices"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestGPUCopyLocalFlags(t *testing.T) {
	p, _ := Lookup(sbv1.TransportGPUCopy)
	flags := func(o *sbv1.GPUCopySpec) []string {
		spec := &sbv1.SpiralBenchSpec{Transport: sbv1.TransportGPUCopy, GPUCopy: o}
		ranks, _ := Ranks(spec)
		return p.Flags(spec, p.Headline, ranks[0])
	}
	if a := flags(nil); slices.Contains(a, "--latency") || slices.Contains(a, "--local-repeats") {
		t.Errorf("no local tests asked, yet local flags: %v", a)
	}
	a := flags(&sbv1.GPUCopySpec{GPUCopyLocalSpec: sbv1.GPUCopyLocalSpec{
		LocalTests: []sbv1.CopyLocalTest{sbv1.CopyLocalSMRead, sbv1.CopyLocalSMWrite},
		Latency:    []sbv1.CopyLatencyTarget{sbv1.CopyLatencyHost, sbv1.CopyLatencyPeer}, LocalRepeats: 5}})
	for flag, want := range map[string]string{"--local-tests": "sm_read,sm_write", "--latency": "host,peer",
		"--local-bytes": "536870912", "--local-repeats": "5"} {
		if got := flagValue(a, flag); got != want {
			t.Errorf("%s = %q, want %q", flag, got, want)
		}
	}
	a = flags(&sbv1.GPUCopySpec{GPUCopyLocalSpec: sbv1.GPUCopyLocalSpec{Latency: []sbv1.CopyLatencyTarget{sbv1.CopyLatencyDevice}}})
	if got := flagValue(a, "--local-tests"); got != "none" {
		t.Errorf("latency alone: --local-tests = %q, want none", got)
	}
}

func TestGPUCopyLocalPartIntoStatus(t *testing.T) {
	part := json.RawMessage(`{"gpus": [[0, -1, 5, 16]], "rows": [],
	  "local": [[0, "sm_read", -1, 3950120, 120, 3], [0, "latency_host", -1, 802500, 1500, 3],
	            [0, "latency_warp", -1, 1, 0, 1]],
	  "local_note": "one GPU: no peer latency"}`)
	var r sbv1.RepeatResult
	if err := applyGPUCopy(part, &r); err != nil {
		t.Fatal(err)
	}
	want := []sbv1.CopyLocalFigure{
		{Device: 0, Test: "SMRead", Peer: -1, MilliValue: 3950120, CVMilliPercent: 120, Repeats: 3},
		{Device: 0, Test: "LatencyHost", Peer: -1, MilliValue: 802500, CVMilliPercent: 1500, Repeats: 3},
	}
	if !slices.Equal(r.Copies.Local, want) {
		t.Errorf("local = %+v, want %+v (an unknown test is dropped)", r.Copies.Local, want)
	}
	if r.Copies.LocalNote != "one GPU: no peer latency" {
		t.Errorf("localNote = %q", r.Copies.LocalNote)
	}
	bad := json.RawMessage(`{"gpus": [], "rows": [], "local": [[0, "sm_read", -1, 1]]}`)
	if err := applyGPUCopy(bad, &r); err == nil {
		t.Error("a local figure of four elements was accepted")
	}
}
