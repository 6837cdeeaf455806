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
