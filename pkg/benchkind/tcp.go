package benchkind

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// TCP streams over TCP sockets, one connection per pair: a server and a client pod.
func init() {
	Register(Profile{
		LiveFigures:        true,
		StreamName:         "pair",
		Transport:          sbv1.TransportTCP,
		DataplaneTransport: "tcp",
		Backend:            "socket-tcp",
		SocketRetrans:      true,
		Ranks:              ServerClient,
		RepeatsPerAttempt:  MaxRepeatsPerProcess,
		Headline:           sbv1.CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: oneQueue},
		Sweep:              Dimensions{PayloadBytes: []int32{1 * MiB, 8000, 1000}, Pairs: []int32{1, 2, 4}},
		Flags: func(spec *sbv1.SpiralBenchSpec, p sbv1.CellParameters, _ Rank) []string {
			return append([]string{"--pairs", Itoa(p.Pairs)}, socketFlags(spec, true)...)
		},
		Describe:  describePairs,
		Admission: Admission{SpecField: "socket", LatencyMode: true, MultiLink: true, Pairs: true},
	})
}
