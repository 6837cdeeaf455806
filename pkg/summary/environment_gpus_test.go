package summary

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A summary as the data plane's compact environment writes it on a faulty node
// (dataplane/tests/unit/hardware_facts_test.cpp builds the same rows): a NIC at 10 of 100 Gb/s,
// one GPU trained to Gen3 x8 of Gen5 x16 running MPS 256 of 512 with 12 of 18 NVLinks, and one
// healthy H200 without NVLink (a VM).
const faultyEnv = `{"v":1,"transport":"tcp","role":"server","state":"Valid","reason":"","seconds_milli":1000,` +
	`"tx_bytes":600,"rx_bytes":600,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,` +
	`"env":{"kernel":"6.8","nics":[{"netdev":"enp1s0f0","driver":"mlx5_core","speed_mbps":10000,"speed_max_mbps":100000,` +
	`"mtu":9000,"rx_ring":1024,"tx_ring":1024,"pci_address":"0000:01:00.0","pci_id":"15b3:101d","pcie_width":16,"pcie_gen":4,` +
	`"pcie_max_width":16,"pcie_max_gen":4,"pcie_mps":256,"pcie_mps_max":512,"numa_node":0}],` +
	`"gpu":{"name":"NVIDIA H200"},"gpu_note":"",` +
	`"gpus":[["0000:1b:00.0",3,5,8,16,256,512,0,18,12,13281,-1,-1,0,0],["0000:2a:00.0",5,5,16,16,256,256,0,-1,-1,-1,-1,-1,2,1]],"gpus_note":""}}`

func TestHardwareFactsFillTheEnvironment(t *testing.T) {
	s, err := Parse(faultyEnv)
	if err != nil {
		t.Fatal(err)
	}
	env := &sbv1.Environment{}
	Environment([]Part{{Summary: &s}}).Fill(env)
	n := env.NICs[0]
	if n.SpeedMbps != 10000 || n.MaxSpeedMbps != 100000 || n.PCIeMaxGeneration != 4 || n.PCIeMaxWidth != 16 ||
		n.MaxPayloadBytes != 256 || n.MaxPayloadSupportedBytes != 512 {
		t.Errorf("nic %+v", n)
	}
	if env.GPUCount == nil || *env.GPUCount != 2 || len(env.GPUs) != 2 {
		t.Fatalf("gpus %v %+v", env.GPUCount, env.GPUs)
	}
	g := env.GPUs[0]
	if g.PCIAddress != "0000:1b:00.0" || g.PCIeGeneration != 3 || g.PCIeMaxGeneration != 5 || g.PCIeWidth != 8 || g.PCIeMaxWidth != 16 ||
		g.MaxPayloadBytes != 256 || g.MaxPayloadSupportedBytes != 512 || g.NVLinks != 18 || g.NVLinksActive != 12 ||
		g.NVLinkMinMegabytesPerSec != 13281 || g.PerformanceState == nil || *g.PerformanceState != 0 ||
		g.RetiredPages != nil || g.RemappedRows == nil || *g.RemappedRows != 0 || *g.RowRemapPending {
		t.Errorf("gpu 0 %+v", g)
	}
	if h := env.GPUs[1]; h.NVLinks != 0 || h.NVLinkMinMegabytesPerSec != 0 || *h.RemappedRows != 2 || !*h.RowRemapPending {
		t.Errorf("gpu 1 %+v", h)
	}
}

func TestGPUFactsWithoutNVMLOrMalformed(t *testing.T) {
	var e Env
	e.GPUsNote = "not available: NVML absent"
	env := &sbv1.Environment{}
	e.Fill(env)
	if env.GPUCount != nil || env.GPUs != nil || env.GPUsNote != "not available: NVML absent" {
		t.Errorf("no NVML: %v %+v %q", env.GPUCount, env.GPUs, env.GPUsNote)
	}
	// A row that does not parse, a short row (an older data plane) and the record's object form.
	msg := `{"v":1,"state":"Valid","env":{"gpus":["junk",["0000:3c:00.0",4],{"pci_address":"0000:4d:00.0","pcie_gen":5,` +
		`"nvlinks":18,"nvlinks_active":18,"nvlink_mbyte_s":[26562,-1,25000]}]}}`
	s, err := Parse(msg)
	if err != nil {
		t.Fatalf("a GPU row never makes the summary unreadable: %v", err)
	}
	if len(s.Env.GPUs) != 3 || s.Env.GPUs[0].PCIeGen != -1 || s.Env.GPUs[1].PCIeGen != 4 || s.Env.GPUs[1].PCIeMaxGen != -1 ||
		s.Env.GPUs[2].NVLinkMinMBps != 25000 || s.Env.GPUs[2].PCIeGen != 5 {
		t.Errorf("gpus %+v", s.Env.GPUs)
	}
}
