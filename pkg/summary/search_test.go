package summary

import (
	"testing"
)

// A search's findings come from the side that ran the trials (the client); the server's
// summary, the verification trial's receiver, has none.
func TestMergeTakesTheSearchFromTheClient(t *testing.T) {
	server, err := Parse(`{"v":1,"transport":"udp","role":"server","state":"Valid","reason":"","seconds_milli":2000,"rx_packets":100,"rx_bytes":800000,"rx_mbps":3200,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1}`)
	if err != nil {
		t.Fatal(err)
	}
	client, err := Parse(`{"v":1,"transport":"udp","role":"client","state":"Valid","reason":"","seconds_milli":2000,"tx_packets":100,"tx_bytes":800000,"tx_mbps":3200,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,` +
		`"search":{"ndr_mbps":3200,"ndr_below_lower":false,"ndr_at_upper":false,"pdr_ppm":1000,"pdr_mbps":3350,"verified":true,"lower_mbps":1,"upper_mbps":9000,"resolution_mbps":90,"search_trials":4,"trials":[[9000,1,1,0,"loss"]]}}`)
	if err != nil {
		t.Fatal(err)
	}
	r := Merge([]Part{{Summary: &server, Receives: true}, {Summary: &client, Sends: true}}, 0, 0)
	s := r.Search
	if s == nil || s.NDRMbps != 3200 || s.PDRMbps == nil || *s.PDRMbps != 3350 || !s.Verified || s.Trials != 4 || s.ResolutionMbps != 90 {
		t.Fatalf("search = %+v", s)
	}
	below, err := Parse(`{"v":1,"transport":"udp","role":"client","state":"Valid","reason":"","cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,` +
		`"search":{"ndr_mbps":null,"ndr_below_lower":true,"pdr_ppm":0,"pdr_mbps":null,"verified":false,"search_trials":3}}`)
	if err != nil {
		t.Fatal(err)
	}
	r = Merge([]Part{{Summary: &below, Receives: true, Sends: true}}, 0, 0)
	if r.Search == nil || r.Search.NDRMbps != 0 || !r.Search.NDRBelowLower || r.Search.PDRMbps != nil {
		t.Fatalf("below the lower bound: %+v", r.Search)
	}
	if _, err := Parse(`{"v":1,"state":"Valid","search":{"ndr_mbps":9007199254740993}}`); err == nil {
		t.Error("an NDR beyond 2^53 must be refused like any other figure")
	}
}
