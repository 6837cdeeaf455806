package summary

import (
	"math/big"
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
		f.Add(seed, clientMsg, uint8(0b1001))
	}
	huge := `{"v":1,"state":"Valid","rx_bytes":6000000000000000000,"tx_bytes":6000000000000000000}`
	f.Add(huge, huge, uint8(0b0101)) // two receivers whose sum would not fit an int64
	f.Fuzz(func(t *testing.T, rank0Text, rank1Text string, roles uint8) {
		rank0, err0 := Parse(rank0Text)
		rank1, err1 := Parse(rank1Text)
		var parts []Part
		// roles: bits 0-1 what rank 0 does, 2-3 what rank 1 does (receive, send).
		for i, r := range []struct {
			s   *Summary
			err error
		}{{&rank0, err0}, {&rank1, err1}} {
			if r.err != nil {
				continue
			}
			checkParsed(t, r.s)
			bits := roles >> (2 * i)
			parts = append(parts, Part{Summary: r.s, Receives: bits&1 != 0, Sends: bits&2 != 0})
		}
		if len(parts) > 0 {
			checkMerged(t, Merge(parts, 1, 2), parts)
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

func checkMerged(t *testing.T, r sbv1.RepeatResult, parts []Part) {
	t.Helper()
	if r.Repeat != 1 || r.Attempt != 2 {
		t.Fatalf("repeat/attempt not kept: %+v", r)
	}
	valid := true
	for _, p := range parts {
		valid = valid && p.Summary.State == "Valid"
	}
	if valid != (r.State == sbv1.CellValid) || (r.State != sbv1.CellValid && r.State != sbv1.CellInvalid) {
		t.Fatalf("state %q from parts %+v", r.State, parts)
	}
	if len(r.Message) > 503 {
		t.Fatalf("message of %d bytes is not clipped", len(r.Message))
	}
	// Sums in exact arithmetic: a wrapped sum would be a number no rank reported.
	rx, tx := new(big.Int), new(big.Int)
	for _, p := range parts {
		if p.Receives {
			rx.Add(rx, big.NewInt(p.Summary.RXBytes))
		}
		if p.Sends {
			tx.Add(tx, big.NewInt(p.Summary.TXBytes))
		}
	}
	if rx.Cmp(big.NewInt(r.RXBytes)) != 0 || tx.Cmp(big.NewInt(r.TXBytes)) != 0 {
		t.Fatalf("rx bytes %d tx bytes %d, exact sums %s and %s", r.RXBytes, r.TXBytes, rx, tx)
	}
	// Where each busy figure comes from (Merge's doc): master from rank 0, TX from the first
	// sender, RX and GPU from the first receiver, rank 0 where there is none.
	first := func(want func(Part) bool) *Summary {
		for _, p := range parts {
			if want(p) {
				return p.Summary
			}
		}
		return parts[0].Summary
	}
	rxSide, txSide := first(func(p Part) bool { return p.Receives }), first(func(p Part) bool { return p.Sends })
	if r.CPU == nil {
		t.Fatal("no CPU figures")
	}
	for _, f := range []struct {
		name     string
		got      int32
		reported int64
	}{
		{"cpu master", r.CPU.MasterMilliPercent, parts[0].Summary.CPUMasterMPct},
		{"cpu tx", r.CPU.TXMilliPercent, txSide.CPUTXMPct},
		{"cpu rx", r.CPU.RXMilliPercent, rxSide.CPURXMPct},
	} {
		if int64(f.got) != f.reported {
			t.Fatalf("%s is %d in the repeat result but the pod reported %d", f.name, f.got, f.reported)
		}
	}
	if r.GPU != nil && (int64(r.GPU.SMMilliPercent) != rxSide.GPUSMMPct || int64(r.GPU.MemoryMilliPercent) != rxSide.GPUMemMPct) {
		t.Fatalf("gpu %+v in the repeat result but the pod reported sm %d mem %d", *r.GPU, rxSide.GPUSMMPct, rxSide.GPUMemMPct)
	}
}
