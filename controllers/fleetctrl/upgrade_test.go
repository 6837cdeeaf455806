package fleetctrl

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestUpgradeStateAcrossDrivers(t *testing.T) {
	node := func(gpu, ofed string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			"nvidia.com/gpu-driver-upgrade-state": gpu, "nvidia.com/ofed-driver-upgrade-state": ofed}}}
	}
	both := []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU, sbv1.UpgradeDriverOFED}
	cases := []struct {
		n       *corev1.Node
		drivers []sbv1.UpgradeDriver
		want    string
	}{
		{node("upgrade-done", "drain-required"), both, "drain-required"}, // any upgrade under way wins
		{node("upgrade-failed", "upgrade-done"), both, "upgrade-failed"},
		{node("upgrade-done", ""), both, "upgrade-done"},
		{node("upgrade-done", "drain-required"), []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU}, "upgrade-done"}, // OFED not followed
		{node("", "cordon-required"), []sbv1.UpgradeDriver{sbv1.UpgradeDriverOFED}, "cordon-required"},
		{node("", ""), both, ""},
	}
	for i, c := range cases {
		if got := upgradeState(c.n, c.drivers); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}
