package benchkind

import (
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RoCE moves messages over RDMA reliable-connected queue pairs (ibverbs): a server and a
// client pod, each with its side's RDMA device.
func init() {
	Register(Profile{
		LiveFigures:        true,
		StreamName:         "qp",
		Transport:          sbv1.TransportRoCE,
		DataplaneTransport: "roce",
		Backend:            "rdma",
		Ranks:              ServerClient,
		// DAQIRI's "8 MB" message is 8,000,000 bytes (run_spark_bench.sh PAYLOADS_SWEEP).
		Headline:  sbv1.CellParameters{PayloadBytes: 8_000_000, Batch: 1, Pairs: 1, Queues: oneQueue},
		Sweep:     Dimensions{PayloadBytes: []int32{8_000_000, 1 * MiB, 64 << 10, 8 << 10, 4 << 10}},
		Flags:     roceFlags,
		Admission: Admission{SpecField: "roce", LatencyMode: true},
		// --queue-pairs sets the data plane's pairs.
		EchoedPairs: func(spec *sbv1.SpiralBenchSpec, _ sbv1.CellParameters) int32 {
			if spec.RoCE == nil {
				return 1
			}
			return max(spec.RoCE.QueuePairs, 1)
		},
	})
}

func roceFlags(spec *sbv1.SpiralBenchSpec, _ sbv1.CellParameters, r Rank) []string {
	o := spec.RoCE
	if o == nil {
		o = &sbv1.RoCESpec{}
	}
	verb, mode := strings.ToLower(string(o.Verb)), strings.ToLower(string(o.Mode))
	if verb == "" {
		verb = "send"
	}
	if mode == "" {
		mode = "bandwidth"
	}
	a := []string{"--verb", verb, "--mode", mode, "--queue-pairs", Itoa(max(o.QueuePairs, 1)), "--memory", MemoryFlag(o.Memory)}
	if o.TXDepth > 0 {
		a = append(a, "--tx-depth", Itoa(o.TXDepth))
	}
	if o.RXDepth > 0 {
		a = append(a, "--rx-depth", Itoa(o.RXDepth))
	}
	// The RoCE GID follows the netdev the pod was given: its first secondary network.
	side := r.Sides[0].Spec(spec)
	if len(side.Networks) > 0 && side.Networks[0].Interface != "" {
		a = append(a, "--netdev", side.Networks[0].Interface)
	}
	return a
}
