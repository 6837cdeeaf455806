package plan

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Preset NoDropRate: DAQIRI's payload matrix of the backend (run_spark_bench.sh's
// PAYLOADS_SWEEP) at the headline batch and pairs, unpaced (the search picks the rates).
func TestNoDropRatePresetIsDAQIRIsPayloadMatrix(t *testing.T) {
	for _, name := range []string{"dpdk", "socket-udp"} {
		b := daqiriBackends[name]
		w := sbtesting.MakeSpiralBench("x", "ns").Transport(b.transport).Preset(sbv1.PresetNoDropRate)
		var want []sbv1.CellParameters
		for _, p := range b.payloads {
			want = append(want, sbv1.CellParameters{PayloadBytes: p, Batch: b.headBatch, Pairs: b.headPairs, Queues: sbv1.QueueCell{TX: 1, RX: 1}})
		}
		sameCells(t, name+" NoDropRate", transportParams(expand(t, w)), want)
	}
}
