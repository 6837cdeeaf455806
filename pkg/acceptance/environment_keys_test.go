package acceptance

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// baseline.environmentKeys chooses what must match: a governor that differs breaks only a
// comparison that names it; a driver upgrade passes one that leaves the driver out.
func TestEnvironmentKeysChooseWhatMustMatch(t *testing.T) {
	base := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted,
		Environment: &sbv1.Environment{GPUDriver: "580.95", Kernel: "6.11", EnvironmentDetail: sbv1.EnvironmentDetail{CPUGovernor: "performance"}},
		CellResults: []sbv1.CellResult{cell(0, true, 8000, 4, 100000, 0, sbv1.CellValid)}}}
	now := []sbv1.CellResult{cell(0, true, 8000, 4, 100000, 0, sbv1.CellValid)}
	env := &sbv1.Environment{GPUDriver: "590.10", Kernel: "6.11", EnvironmentDetail: sbv1.EnvironmentDetail{CPUGovernor: "ondemand"}}
	spec := sbv1.BaselineSpec{SpiralBenchName: "b", MaxRegressionPercent: ptr.To[int32](5), RequireSameEnvironment: true}

	if _, broken := CompareBaseline(spec, now, env, base); len(broken) != 1 || strings.Contains(broken[0], "cpuGovernor") {
		t.Errorf("default keys: the driver, not the governor: %v", broken)
	}
	spec.EnvironmentKeys = []sbv1.EnvironmentKey{"kernel", "cpuGovernor"}
	_, broken := CompareBaseline(spec, now, env, base)
	if len(broken) != 1 || !strings.Contains(broken[0], `cpuGovernor "ondemand" vs "performance"`) || strings.Contains(broken[0], "gpuDriver") {
		t.Errorf("chosen keys: %v", broken)
	}
	spec.EnvironmentKeys = []sbv1.EnvironmentKey{"kernel"}
	if held, broken := CompareBaseline(spec, now, env, base); len(broken) != 0 || len(held) != 1 {
		t.Errorf("same kernel is comparable: held %v broken %v", held, broken)
	}
}
