package cellpod

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestSearchReachesBothSidesAsFlagsAndWidensTheDeadline(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("ndr", "lab").Transport(sbv1.TransportUDP).Obj()
	in := input(sb)
	plain := DeadlineSeconds(sb.Spec.Run)
	sb.Spec.Run.Search = &sbv1.RateSearchSpec{LowerMbps: 100, UpperMbps: ptr.To[int64](20000), TrialSeconds: 2,
		ResolutionMbps: ptr.To[int64](200), PDRTolerancePPM: ptr.To[int64](1000), SettleMilliseconds: ptr.To[int32](500),
		Method: sbv1.SearchMethodBinary}
	for _, role := range []string{RoleServer, RoleClient} {
		args := strings.Join(build(in, role, "10.0.0.1").Spec.Containers[0].Args, " ")
		for _, want := range []string{"--search --search-lower-mbps 100 --search-upper-mbps 20000 --search-trial-seconds 2 --search-settle-ms 500 --search-method binary",
			"--search-resolution-mbps 200", "--search-pdr-ppm 1000"} {
			if !strings.Contains(args, want) {
				t.Errorf("%s args lack %q: %s", role, want, args)
			}
		}
		if strings.Contains(args, "--target-mbps") {
			t.Errorf("%s: the search sets the rate, no --target-mbps: %s", role, args)
		}
	}
	// 2 bounds + 2 x (ceil(log2(19900/200)) + 1) bisections + 1 verification = 19 trials of
	// 2 s warm-up + 2 s + 1 s settle + 3 s overhead.
	if got, want := DeadlineSeconds(sb.Spec.Run)-plain, int64(19*8); got != want {
		t.Errorf("the search adds %d s to the deadline, want %d", got, want)
	}
	sb.Spec.Run.Search = &sbv1.RateSearchSpec{LowerMbps: 1, TrialSeconds: 1}
	args := strings.Join(build(in, RoleClient, "10.0.0.1").Spec.Containers[0].Args, " ")
	if !strings.Contains(args, "--search-upper-mbps 0") || strings.Contains(args, "--search-resolution") || strings.Contains(args, "--search-pdr-ppm") {
		t.Errorf("defaults: an unpaced first trial, the data plane's resolution, no PDR: %s", args)
	}
}
