package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// argAfter is the value after flag in a pod's data plane args, "" when absent.
func argAfter(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// twoLinkSummary is what the data plane writes for four TCP pairs over two links of veth-like
// interfaces (dataplane/tests/integration/wire_two_links.sh runs the real thing), with the
// environment capture on the rank that was asked for it.
func twoLinkSummary(role string, withEnv bool) string {
	env := ""
	if withEnv {
		env = `,"env":{"dataplane_version":"0.1.0","dataplane_revision":"d424416abcd","kernel":"6.11.0-1016-nvidia",` +
			`"kernel_cmdline":"ro isolcpus=4-9","isolcpus":"4-9","nohz_full":"4-9","cpu_governor":"performance",` +
			`"hugepages_total":16,"hugepages_free":16,"hugepage_size_kib":1048576,"nics":[` +
			`{"netdev":"net1","driver":"mlx5_core","driver_version":"24.10","firmware":"28.45.1020 (NVD0000000087)","bus_info":"0000:01:00.0",` +
			`"speed_mbps":200000,"mtu":9000,"rx_ring":1024,"tx_ring":1024,"pci_address":"0000:01:00.0","pcie_width":4,"pcie_gen":5,"numa_node":0},` +
			`{"netdev":"net2","driver":"mlx5_core","driver_version":"24.10","firmware":"28.45.1020 (NVD0000000087)","bus_info":"0002:01:00.0",` +
			`"speed_mbps":200000,"mtu":9000,"rx_ring":1024,"tx_ring":1024,"pci_address":"0002:01:00.0","pci_id":"15b3:1021","pcie_width":4,"pcie_gen":5,"numa_node":0}],` +
			`"gpu":{"name":"NVIDIA GB10","driver_version":"580.95.05","cuda_version":"13.0","pci_bus_id":"0000000F:01:00.0","pcie_width":-1,"pcie_gen":-1,"numa_node":-1},"gpu_note":""}`
	}
	return fmt.Sprintf(`{"v":1,"transport":"tcp","role":%q,"state":"Valid","reason":"","seconds_milli":1000,"payload_bytes":8000,`+
		`"pairs":4,"target_mbps":0,"tx_packets":250000,"tx_bytes":2000000000,"rx_packets":250000,"rx_bytes":2000000000,"pps":250000,`+
		`"tx_mbps":16000,"rx_mbps":16000,"drops":0,"drops_kind":"tcp-nstat-retrans+inerrs","loss_ppm":0,"cpu_master_mpct":1000,`+
		`"cpu_tx_mpct":90000,"cpu_rx_mpct":80000,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,`+
		`"wire":"crossed","wire_note":"","tx_bytes_phy":2030000000,"rx_bytes_phy":2030000000,"links":[`+
		`{"link":0,"address":"10.56.1.2","tx_netdev":"net1","rx_netdev":"net1","pairs":2,"tx_bytes":1000000000,"rx_bytes":1000000000,`+
		`"tx_mbps":8000,"rx_mbps":8000,"tx_bytes_phy":1015000000,"rx_bytes_phy":1015000000,"wire":"crossed"},`+
		`{"link":1,"address":"10.56.2.2","tx_netdev":"net2","rx_netdev":"net2","pairs":2,"tx_bytes":1000000000,"rx_bytes":1000000000,`+
		`"tx_mbps":8000,"rx_mbps":8000,"tx_bytes_phy":1015000000,"rx_bytes_phy":1015000000,"wire":"crossed"}]%s}`, role, env)
}

// TCP pairs spread over two Multus networks per side: both pods get both attachments, the
// client gets the server's address on each link, status has a row per link, and the server's
// first attempt captures the environment into status.environment once.
func TestPairsSpreadOverTwoNetworksWithRowsPerLink(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "links-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("links", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(4), 2, 0)
	sb := onTestNode(w.Obj(), "links-node-1")
	sb.Spec.Topology.Links = 2
	nets := []sbv1.NetworkAttachment{{Name: "cx7-p0", Interface: "net1"}, {Name: "cx7-p1", Interface: "net2"}}
	sb.Spec.Topology.Server.Networks, sb.Spec.Topology.Client.Networks = nets, nets
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	var serverEnvFlags []bool
	var networksSeen []string
	k := &kubeletStandIn{t: t, ns: ns, bench: "links", imageID: "docker-pullable://registry.local/spiral-dataplane@sha256:0123abcd"}
	k.networkStatus = func(p *corev1.Pod) string {
		if p.Labels[cellpod.LabelRole] != cellpod.RoleServer {
			return ""
		}
		return `[{"name":"kindnet","interface":"eth0","ips":["10.244.0.7"],"default":true},` +
			`{"name":"cx7-p0","interface":"net1","ips":["10.56.1.2"]},{"name":"cx7-p1","interface":"net2","ips":["10.56.2.2"]}]`
	}
	k.summary = func(cell, repeat int, role string) string {
		for _, p := range podsOf(t, ns, "links") {
			if p.Labels[cellpod.LabelRole] == role {
				networksSeen = append(networksSeen, role+":"+p.Annotations[cellpod.MultusNetwork])
				if role == cellpod.RoleServer {
					// The data plane captures on its first repeat only (several may share a pod).
					withEnv := slices.Contains(p.Spec.Containers[0].Args, "--environment") && p.Labels[cellpod.LabelRepeat] == fmt.Sprint(repeat)
					serverEnvFlags = append(serverEnvFlags, withEnv)
					return twoLinkSummary(role, withEnv)
				}
			}
		}
		return twoLinkSummary(role, false)
	}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	if got := argAfter(k.clientArgs, "--server-addresses"); got != "10.56.1.2,10.56.2.2" {
		t.Errorf("client --server-addresses %q, args %v", got, k.clientArgs)
	}
	if got := argAfter(k.clientArgs, "--server-address"); got != "10.56.1.2" {
		t.Errorf("client --server-address %q", got)
	}
	for _, seen := range networksSeen {
		if !strings.Contains(seen, `"name":"cx7-p0"`) || !strings.Contains(seen, `"name":"cx7-p1"`) ||
			!strings.Contains(seen, `"interface":"net2"`) {
			t.Errorf("a pod lacks a link's network: %s", seen)
		}
	}
	if len(networksSeen) != 4 {
		t.Errorf("saw %d pods' networks, want 2 repeats x 2 roles: %v", len(networksSeen), networksSeen)
	}
	// Captured once: the first repeat's server line carries it, the second's not.
	if !slices.Equal(serverEnvFlags, []bool{true, false}) {
		t.Errorf("--environment on the servers of repeats 0 and 1: %v", serverEnvFlags)
	}
	c := sb.Status.CellResults[0]
	if c.State != sbv1.CellValid || c.Wire != sbv1.WireCrossed || len(c.RepeatResults) != 2 {
		t.Fatalf("cell %+v", c)
	}
	wire := c.RepeatResults[0].Wire
	if wire == nil || wire.Verdict != sbv1.WireCrossed || wire.TXBytesPHY != 2030000000 || len(wire.Links) != 2 {
		t.Fatalf("wire %+v", wire)
	}
	if l := wire.Links[1]; l.Link != 1 || l.Address != "10.56.2.2" || l.TXInterface != "net2" || l.RXInterface != "net2" ||
		l.Pairs != 2 || l.RXMbps != 8000 || l.RXBytesPHY != 1015000000 || l.Wire != sbv1.WireCrossed {
		t.Errorf("link 1 row %+v", l)
	}
	env := sb.Status.Environment
	if env == nil {
		t.Fatal("no environment")
	}
	if env.Node != "links-node-1" || env.NICDriver != "mlx5_core 24.10" || env.NICFirmware != "28.45.1020 (NVD0000000087)" ||
		env.DataplaneRevision != "d424416abcd" || env.CUDAVersion != "13.0" || env.IsolatedCPUs != "4-9" ||
		env.CPUGovernor != "performance" || env.HugepagesTotal != 16 || env.HugepageSizeKiB != 1048576 ||
		env.ImageDigest != "registry.local/spiral-dataplane@sha256:0123abcd" || len(env.NICs) != 2 {
		t.Errorf("environment %+v", env)
	}
	if n := env.NICs[1]; n.Interface != "net2" || n.PCIAddress != "0002:01:00.0" || n.PCIID != "15b3:1021" || n.SpeedMbps != 200000 || n.MTU != 9000 ||
		n.RXRing != 1024 || n.PCIeGeneration != 5 || n.PCIeWidth != 4 || ptr.Deref(n.NUMANode, -5) != 0 {
		t.Errorf("nic 1 %+v", n)
	}
	if env.GPUPCIeWidth != 0 || ptr.Deref(env.GPUNUMANode, -5) != -1 {
		t.Errorf("GB10's GPU is not on PCIe and has no NUMA node: width %d numa %v", env.GPUPCIeWidth, env.GPUNUMANode)
	}
}
