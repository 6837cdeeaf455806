package v1alpha1

import "testing"

// The admission rules of gpuCopy's local tests, run from the generated CRD with cel-go.
func TestGPUCopyLocalRules(t *testing.T) {
	const benches = "spiralbench.io_spiralbenches.yaml"
	bytes := formatRules(t, benches, "gpuCopy.localBytes must be a multiple of 16")
	for b, want := range map[int64]bool{16: true, 512 << 20: true, 1000: false, 24: false} {
		if got := admits(t, bytes, map[string]any{"localBytes": b}); got != want {
			t.Errorf("localBytes %d: admitted %v, want %v", b, got, want)
		}
	}
	repeats := formatRules(t, benches, "gpuCopy.localRepeats measures the local figures again")
	for _, c := range []struct {
		spec map[string]any
		want bool
	}{
		{map[string]any{}, true},
		{map[string]any{"localRepeats": int64(1)}, true},
		{map[string]any{"localRepeats": int64(5)}, false}, // nothing to repeat
		{map[string]any{"localRepeats": int64(5), "latency": []any{"Host"}}, true},
		{map[string]any{"localRepeats": int64(5), "localTests": []any{"SMRead"}}, true},
	} {
		if got := admits(t, repeats, c.spec); got != c.want {
			t.Errorf("%v: admitted %v, want %v", c.spec, got, c.want)
		}
	}
	peer := formatRules(t, benches, "gpuCopy.latency Peer chases pointers in another GPU's memory")
	spec := func(gpus int64, latency ...any) map[string]any {
		return map[string]any{"gpuCopy": map[string]any{"latency": latency},
			"topology": map[string]any{"server": map[string]any{"gpus": gpus}}}
	}
	for _, c := range []struct {
		spec map[string]any
		want bool
	}{
		{spec(1, "Host", "Device"), true},
		{spec(1, "Peer"), false},
		{spec(2, "Peer"), true},
		{map[string]any{"topology": map[string]any{"server": map[string]any{}}}, true},
	} {
		if got := admits(t, peer, c.spec); got != c.want {
			t.Errorf("%v: admitted %v, want %v", c.spec, got, c.want)
		}
	}
}
