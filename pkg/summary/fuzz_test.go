package summary

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The termination message is written by a pod, so Parse reads untrusted input: whatever it
// accepts must merge into a repeat result without a panic, and every number of that result
// must be one a pod reported (no silent wrap-around into another value).
// Short run: make fuzz-short; long run: hack/bench/fuzz.sh.
func FuzzParseAndMerge(f *testing.F) {
	for _, seed := range []string{
		serverMsg, clientMsg, "", "{}", "null", `{"v":1,"state":"Valid"}`, `{"v":1,"state":"Failed","reason":"x"}`,
		`{"v":1,"state":"Valid","lat_p50_ns":5,"lat_p99_ns":9}`, `{"v":1,"state":"Valid","cpu_tx_mpct":4294967296}`,
		`{"v":1,"state":"Valid","rx_mbps":9223372036854775807}`, "terminate called after throwing", `{"v":1,"state":"Valid"} trailing`,
	} {
		f.Add(seed, clientMsg)
	}
	f.Fuzz(func(t *testing.T, serverText, clientText string) {
		server, errS := Parse(serverText)
		client, errC := Parse(clientText)
		if errS == nil {
			checkParsed(t, &server)
		}
		if errC == nil {
			checkParsed(t, &client)
		}
		switch {
		case errS == nil && errC == nil:
			checkMerged(t, Merge(&server, &client, 1, 2), &server, &client)
		case errS == nil:
			checkMerged(t, Merge(&server, nil, 1, 2), &server, nil)
		case errC == nil:
			checkMerged(t, Merge(nil, &client, 1, 2), nil, &client)
		}
	})
}

func checkParsed(t *testing.T, s *Summary) {
	t.Helper()
	if s.V != 1 || (s.State != "Valid" && s.State != "Invalid" && s.State != "Failed") {
		t.Fatalf("Parse accepted version %d state %q", s.V, s.State)
	}
	for _, n := range []int64{s.TXBytes, s.RXBytes, s.TXPackets, s.RXPackets, s.Drops} {
		if n < 0 {
			t.Fatalf("Parse accepted a negative counter: %+v", s)
		}
	}
}

func checkMerged(t *testing.T, r sbv1.RepeatResult, server, client *Summary) {
	t.Helper()
	if r.Repeat != 1 || r.Attempt != 2 {
		t.Fatalf("repeat/attempt not kept: %+v", r)
	}
	valid := (server == nil || server.State == "Valid") && (client == nil || client.State == "Valid")
	if valid != (r.State == sbv1.CellValid) || (r.State != sbv1.CellValid && r.State != sbv1.CellInvalid) {
		t.Fatalf("state %q from server %v client %v", r.State, server, client)
	}
	if len(r.Message) > 503 {
		t.Fatalf("message of %d bytes is not clipped", len(r.Message))
	}
	// Where each figure comes from (docs/dataplane.md): the receiver's master and RX CPU and
	// GPU, the sender's TX CPU; one side alone gives all of them.
	rx, tx := server, client
	if rx == nil {
		rx = client
	}
	if tx == nil {
		tx = server
	}
	if r.CPU == nil {
		t.Fatal("no CPU figures")
	}
	for _, f := range []struct {
		name     string
		got      int32
		reported int64
	}{
		{"cpu master", r.CPU.MasterMilliPercent, rx.CPUMasterMPct},
		{"cpu tx", r.CPU.TXMilliPercent, tx.CPUTXMPct},
		{"cpu rx", r.CPU.RXMilliPercent, rx.CPURXMPct},
	} {
		if int64(f.got) != f.reported {
			t.Fatalf("%s is %d in the repeat result but the pod reported %d", f.name, f.got, f.reported)
		}
	}
	if r.GPU != nil && (int64(r.GPU.SMMilliPercent) != rx.GPUSMMPct || int64(r.GPU.MemoryMilliPercent) != rx.GPUMemMPct) {
		t.Fatalf("gpu %+v in the repeat result but the pod reported sm %d mem %d", *r.GPU, rx.GPUSMMPct, rx.GPUMemMPct)
	}
}
