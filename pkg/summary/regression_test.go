package summary

import "testing"

// Found by FuzzParseAndMerge (testdata/fuzz/FuzzParseAndMerge/cpu-busy-wraps-int32): a pod
// reporting a busy figure beyond int32 had it wrap into a negative number in status.
func TestParseRefusesBusyFiguresThatWouldWrap(t *testing.T) {
	for _, msg := range []string{
		`{"v":1,"state":"Valid","cpu_tx_mpct":2170000000}`,
		`{"v":1,"state":"Valid","gpu_sm_mpct":-2}`,
		`{"v":1,"state":"Valid","cpu_master_mpct":-9223372036854775808}`,
	} {
		if _, err := Parse(msg); err == nil {
			t.Errorf("Parse(%s) accepted a figure status cannot hold", msg)
		}
	}
	if _, err := Parse(`{"v":1,"state":"Valid","cpu_tx_mpct":2147483647,"gpu_sm_mpct":-1}`); err != nil {
		t.Errorf("the int32 maximum and -1 (not measured) must parse: %v", err)
	}
}

// Found by FuzzParseAndMerge once Merge summed N ranks (seed "two receivers"): two ranks'
// rx_bytes near 2^63 summed into a negative number.
func TestParseRefusesFiguresWhoseSumsCouldWrap(t *testing.T) {
	if _, err := Parse(`{"v":1,"state":"Valid","rx_bytes":6000000000000000000}`); err == nil {
		t.Error("a counter beyond 2^53 must be refused")
	}
	if _, err := Parse(`{"v":1,"state":"Valid","rx_bytes":9007199254740992}`); err != nil {
		t.Errorf("2^53 itself must parse: %v", err)
	}
}
