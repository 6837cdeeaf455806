package environment

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func spark() *sbv1.Environment {
	return &sbv1.Environment{GPUModel: "NVIDIA GB10", GPUDriver: "580.95.05", NICDriver: "mlx5_core", NICFirmware: "28.45.1020",
		Kernel: "6.11.0-1016-nvidia", Image: "dp:1",
		EnvironmentDetail: sbv1.EnvironmentDetail{CUDAVersion: "13.0", CPUGovernor: "performance", IsolatedCPUs: "4-9",
			HugepagesTotal: 16, HugepageSizeKiB: 1048576,
			NICs: []sbv1.NICEnvironment{{Interface: "enp1s0f0np0", SpeedMbps: 200000, MTU: 9000, RXRing: 1024, TXRing: 1024,
				PCIeWidth: 4, PCIeGeneration: 5, NUMANode: ptr.To[int32](0)}}}}
}

func TestEveryEnumKeyHasAReader(t *testing.T) {
	// The enum of sbv1.EnvironmentKey, as its kubebuilder marker lists it.
	enum := "gpuModel;gpuDriver;cudaVersion;nicDriver;nicFirmware;kernel;kernelCmdline;isolatedCPUs;cpuGovernor;cpu;hugepages;image;imageDigest;dataplaneRevision;nicLink;pcie"
	want := strings.Split(enum, ";")
	var got []string
	for _, k := range Keys() {
		got = append(got, string(k))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("keys %v, enum %v", got, want)
	}
}

func TestDiffLooksOnlyAtTheChosenKeys(t *testing.T) {
	a, b := spark(), spark()
	b.CPUGovernor = "ondemand"
	b.NICs[0].SpeedMbps = 100000
	if d := Diff(a, b, BaselineKeys); len(d) != 0 {
		t.Fatalf("default keys ignore governor and link speed, got %v", d)
	}
	d := Diff(a, b, []sbv1.EnvironmentKey{"cpuGovernor", "nicLink", "kernel"})
	if len(d) != 2 || d[0].Key != "nicLink" || d[1].Key != "cpuGovernor" {
		t.Fatalf("got %v", d)
	}
	if !strings.Contains(d[0].String(), `"enp1s0f0np0=200000Mb/s mtu 9000 rings 1024/1024" vs "enp1s0f0np0=100000Mb/s`) {
		t.Fatalf("nicLink diff reads %s", d[0])
	}
}

func TestPCIeAndNUMAOfNICAndGPU(t *testing.T) {
	a, b := spark(), spark()
	b.NICs[0].PCIeWidth = 2 // trained down
	if Comparable(a, b, []sbv1.EnvironmentKey{"pcie"}) {
		t.Fatal("a NIC at x2 is not comparable with one at x4")
	}
	b = spark()
	b.GPUNUMANode = ptr.To[int32](1)
	if Comparable(a, b, []sbv1.EnvironmentKey{"pcie"}) {
		t.Fatal("a GPU on another NUMA node is not comparable")
	}
}

func TestNilEnvironmentReadsAsEmpty(t *testing.T) {
	d := Diff(nil, spark(), []sbv1.EnvironmentKey{"kernel", "hugepages"})
	if len(d) != 2 || d[0].A != "" || d[1].B != "16 x 1048576 KiB" {
		t.Fatalf("got %v", d)
	}
	if !Comparable(nil, nil, Keys()) {
		t.Fatal("two unrecorded environments do not differ")
	}
	if got := KeysOr(nil, HistoryKeys); !slices.Equal(got, HistoryKeys) {
		t.Fatalf("KeysOr(nil) = %v", got)
	}
}
