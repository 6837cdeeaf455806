package summary

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

const withWire = `{"v":1,"transport":"tcp","role":"server","state":"Valid","reason":"","seconds_milli":1000,` +
	`"tx_bytes":600,"rx_bytes":600,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,` +
	`"wire":"unverified","wire_note":"wire unverified: sbw2-a0: no PHY counters","tx_bytes_phy":0,"rx_bytes_phy":0,` +
	`"links":[{"link":0,"address":"10.79.1.2","tx_netdev":"sbw2-a0","rx_netdev":"sbw2-b0","pairs":2,"tx_mbps":3,"rx_mbps":3,"wire":"unverified"},` +
	`{"link":1,"address":"10.79.2.2","tx_netdev":"sbw2-a1","rx_netdev":"sbw2-b1","pairs":2,"tx_mbps":2,"rx_mbps":2,"wire":"unverified"}],` +
	`"env":{"dataplane_revision":"abc","kernel":"6.1","nics":[{"netdev":"sbw2-b0","driver":"veth","driver_version":"1.0",` +
	`"firmware":"","speed_mbps":10000,"mtu":9000,"rx_ring":256,"tx_ring":256,"pcie_width":-1,"pcie_gen":-1,"numa_node":-1}],` +
	`"gpu":null,"gpu_note":"NVML absent"}}`

func TestWireAndLinksBecomeTheRepeatsProof(t *testing.T) {
	s, err := Parse(withWire)
	if err != nil {
		t.Fatal(err)
	}
	r := Merge([]Part{{Summary: &s, Receives: true, Sends: true}}, 0, 0)
	w := r.Wire
	if w == nil || w.Verdict != sbv1.WireUnverified || w.Note != "wire unverified: sbw2-a0: no PHY counters" || len(w.Links) != 2 {
		t.Fatalf("wire %+v", w)
	}
	if l := w.Links[1]; l.TXInterface != "sbw2-a1" || l.RXInterface != "sbw2-b1" || l.Pairs != 2 || l.RXMbps != 2 || l.Wire != sbv1.WireUnverified {
		t.Errorf("link 1 %+v", l)
	}
}

func TestTheWorstRankDecidesTheWire(t *testing.T) {
	crossed, notCrossed := Summary{V: 1, State: "Valid", Wire: "crossed"}, Summary{V: 1, State: "Invalid", Wire: "did-not-cross"}
	r := Merge([]Part{{Summary: &crossed, Receives: true}, {Summary: &notCrossed, Sends: true}}, 0, 0)
	if r.Wire.Verdict != sbv1.WireDidNotCross {
		t.Errorf("verdict %s", r.Wire.Verdict)
	}
	none := Summary{V: 1, State: "Valid"}
	if r := Merge([]Part{{Summary: &none, Receives: true, Sends: true}}, 0, 0); r.Wire != nil {
		t.Errorf("a kind that does not check has no proof: %+v", r.Wire)
	}
	if WorseWire(sbv1.WireUnverified, sbv1.WireCrossed) != sbv1.WireUnverified || WorseWire("", sbv1.WireCrossed) != sbv1.WireCrossed {
		t.Error("WorseWire order")
	}
	for _, v := range []sbv1.WireVerdict{sbv1.WireCrossed, sbv1.WireDidNotCross, sbv1.WireUnverified} {
		if WireVerdict(WireWord(v)) != v {
			t.Errorf("%s does not round-trip", v)
		}
	}
}

func TestCapturedEnvironmentFillsStatus(t *testing.T) {
	s, err := Parse(withWire)
	if err != nil {
		t.Fatal(err)
	}
	e := Environment([]Part{{Summary: &Summary{V: 1}}, {Summary: &s}})
	if e == nil {
		t.Fatal("the capture is on the second rank")
	}
	env := &sbv1.Environment{Kernel: "6.1.0-from-node-labels", GPUModel: "NVIDIA GB10"}
	e.Fill(env)
	if env.NICDriver != "veth 1.0" || env.NICFirmware != "" || env.DataplaneRevision != "abc" || env.GPUNote != "NVML absent" ||
		env.Kernel != "6.1.0-from-node-labels" || env.GPUModel != "NVIDIA GB10" || env.CUDAVersion != "" {
		t.Errorf("environment %+v", env)
	}
	if n := env.NICs[0]; n.Interface != "sbw2-b0" || n.RXRing != 256 || n.PCIeWidth != 0 || n.NUMANode == nil || *n.NUMANode != -1 {
		t.Errorf("nic %+v", n)
	}
}
