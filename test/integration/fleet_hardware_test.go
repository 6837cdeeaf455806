package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// gpuRow is one GPU of the data plane's summary (kCompactGpuColumns): address, PCIe generation
// and its maximum, width and its maximum, MPS and its maximum, P-state, NVLinks, active,
// slowest link MB/s, retired pages, pending, remapped rows, pending.
func gpuRow(i, gen, width, nvActive int) string {
	return fmt.Sprintf(`["0000:%02x:00.0",%d,5,%d,16,256,512,0,18,%d,25000,0,0,0,0]`, 0x1b+i, gen, width, nvActive)
}

// hostEnv is a capture of 8 GPUs (or fewer) and one 100 Gb/s NIC at speedMbps, with GPU 0 as
// given.
func hostEnv(gpus, gen0, width0, nvActive0 int, speedMbps int64) string {
	rows := make([]string, gpus)
	for i := range rows {
		rows[i] = gpuRow(i, 5, 16, 18)
	}
	if gpus > 0 {
		rows[0] = gpuRow(0, gen0, width0, nvActive0)
	}
	return fmt.Sprintf(`{"dataplane_revision":"test","kernel":"6.11.0-test","nics":[{"netdev":"enp1s0f0","driver":"mlx5_core",`+
		`"speed_mbps":%d,"speed_max_mbps":100000,"mtu":9000,"pcie_width":16,"pcie_gen":5,"pcie_max_width":16,"pcie_max_gen":5}],"gpus":[%s]}`,
		speedMbps, strings.Join(rows, ","))
}

// A fault-injected capture per node (what the data plane reads from sysfs and NVML on a sick
// host) reaches each node's verdict through a fleet: a GPU link trained down, an NVLink down, a
// GPU missing against the node's allocatable 8, a NIC below its maximum speed; a healthy host
// raises nothing.
func TestFleetNamesTheWrongHardwareFact(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	env := map[string]string{
		"fh-good":    hostEnv(8, 5, 16, 18, 100000),
		"fh-down":    hostEnv(8, 3, 8, 18, 100000),
		"fh-nvlink":  hostEnv(8, 5, 16, 12, 100000),
		"fh-missing": hostEnv(7, 5, 16, 18, 100000),
		"fh-nic":     hostEnv(8, 5, 16, 18, 10000),
	}
	for n := range env {
		node := poolNode(t, n, "hw")
		node.Status.Allocatable = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}
		node.Status.Capacity = node.Status.Allocatable
		if err := k8sClient.Status().Update(context.Background(), node); err != nil {
			t.Fatal(err)
		}
	}
	f := sbtesting.MakeFleet("hw", ns, "hw").MinRxMbps(500).Verdicts(false).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	done := (&fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}, env: env}).runUntil(60*time.Second, "hw", "round finished", roundFinished(1))
	for node, want := range map[string]string{
		"fh-down":    "PCIeDowntrained",
		"fh-nvlink":  "NVLinkDown",
		"fh-missing": "GPUMissing",
		"fh-nic":     "NICSpeedLow",
	} {
		r := rowOf(done, node)
		if r.Verdict != sbv1.NodeFailed || !strings.Contains(strings.Join(r.Reasons, ","), want) {
			t.Errorf("%s: %s %v %q, want Failed with %s", node, r.Verdict, r.Reasons, r.Reason, want)
		}
	}
	for node, detail := range map[string]string{"fh-down": "GPU 0000:1b:00.0 Gen3 x8 (max Gen5 x16)", "fh-nvlink": "GPU0 12/18",
		"fh-missing": "7/8", "fh-nic": "enp1s0f0 10000/100000"} {
		if r := rowOf(done, node); !strings.Contains(r.Reason, detail) {
			t.Errorf("%s: reason %q lacks %q", node, r.Reason, detail)
		}
	}
	if r := rowOf(done, "fh-good"); r.Verdict != sbv1.NodePassed || len(r.Reasons) != 0 {
		t.Errorf("fh-good: %s %v %q", r.Verdict, r.Reasons, r.Reason)
	}
}
