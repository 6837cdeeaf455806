package benchkind

import (
	"strconv"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RoleRank is the data plane subcommand of one pod of NCCL ranks: it starts one process per
// GPU of the pod, NCCL ranks firstRank..firstRank+gpus-1 of the cell.
const RoleRank = "rank"

// NCCL measures a collective between GPUs as nccl-tests does: one pod per node holding that
// node's GPUs (topology.server's; with CrossNode also topology.client's on a second node), one
// NCCL rank per GPU. The pods' rank 0 holds NCCL rank 0, which hands NCCL's unique id to every
// other rank over the data plane's control channel (no MPI, no SSH).
func init() {
	Register(Profile{
		Transport:          sbv1.TransportNCCL,
		DataplaneTransport: "nccl",
		Backend:            "nccl",
		Ranks:              ncclRanks,
		Headline:           sbv1.CellParameters{Batch: 1, Pairs: 1, Queues: oneQueue},
		Flags:              ncclFlags,
		Results:            &ncclResults,
		Admission: Admission{SpecField: "nccl", SweepInCell: true,
			GPUs: "transport NCCL runs one rank per GPU", GPUCount: "to at least 1"},
		Describe: func(sbv1.CellParameters) string { return "size sweep (spec.nccl)" },
	})
}

// ncclRanks: one pod on the server side's node, and with CrossNode one on the client side's.
// The first pod reports the whole sweep (its NCCL rank 0 gathers every rank's rows), so the
// repeat result takes its summary as both the receiving and the sending part.
func ncclRanks(spec *sbv1.SpiralBenchSpec) []Rank {
	ranks := []Rank{{Name: "rank0", Role: RoleRank, Sides: []Side{SideServer}, Node: 0, Receives: true, Sends: true}}
	if spec.Topology.Mode == sbv1.TopologyCrossNode {
		ranks = append(ranks, Rank{Name: "rank1", Role: RoleRank, Sides: []Side{SideClient}, Node: 1})
	}
	return ranks
}

// NCCLRankCount is the number of NCCL ranks of a spec: every GPU of its pods.
func NCCLRankCount(spec *sbv1.SpiralBenchSpec) int32 {
	n := spec.Topology.Server.GPUs
	if spec.Topology.Mode == sbv1.TopologyCrossNode {
		n += spec.Topology.Client.GPUs
	}
	return n
}

// ncclDataTypes are the data plane's (and nccl-tests' -d) spellings.
var ncclDataTypes = map[sbv1.NCCLDataType]string{
	"Int8": "int8", "Uint8": "uint8", "Int32": "int32", "Uint32": "uint32", "Int64": "int64", "Uint64": "uint64",
	"Float16": "half", "Float32": "float", "Float64": "double", "BFloat16": "bfloat16",
}

// NCCLDataTypeName is the data plane's spelling of a data type (float for the default).
func NCCLDataTypeName(t sbv1.NCCLDataType) string {
	if n := ncclDataTypes[t]; n != "" {
		return n
	}
	return "float"
}

// NCCLReduceOpName is the data plane's spelling of a reduction (sum for the default).
func NCCLReduceOpName(op sbv1.NCCLReduceOp) string {
	return strings.ToLower(string(defaulted(op, "Sum")))
}

func ncclFlags(spec *sbv1.SpiralBenchSpec, _ sbv1.CellParameters, r Rank) []string {
	o := spec.NCCL
	if o == nil {
		o = &sbv1.NCCLSpec{}
	}
	firstRank := int32(0)
	if r.Index > 0 {
		firstRank = spec.Topology.Server.GPUs
	}
	side := r.Sides[0].Spec(spec)
	dataType := NCCLDataTypeName(o.DataType)
	a := []string{
		"--op", o.Operation.DataplaneName(),
		"--min-bytes", i64(o.MinBytes, 8), "--max-bytes", i64(o.MaxBytes, 128*MiB),
		"--step-factor", Itoa(max(o.StepFactor, 2)),
		"--iterations", Itoa(max(o.Iterations, 1)), "--warmup-iterations", Itoa(o.WarmupIterations),
		"--check-iterations", Itoa(o.CheckIterations),
		"--data-type", dataType, "--reduce-op", NCCLReduceOpName(o.ReduceOp),
		"--root", Itoa(o.Root), "--placement", placementFlag(o.Placement),
		"--gpus", Itoa(side.GPUs), "--first-rank", Itoa(firstRank), "--nranks", Itoa(NCCLRankCount(spec)),
		"--bootstrap-timeout-ms", Itoa(max(o.BootstrapTimeoutSeconds, 5) * 1000),
		"--network", strings.ToLower(string(defaulted(o.Network, sbv1.NCCLNetworkAuto))),
	}
	// nccl-tests 2.17-2.19's -T -u -z -R, passed only when set so older data planes still start
	if o.TimeoutSeconds > 0 {
		a = append(a, "--timeout-s", Itoa(o.TimeoutSeconds))
	}
	if o.UnalignElements > 0 {
		a = append(a, "--unalign", Itoa(o.UnalignElements))
	}
	if b := ncclBlocking[o.Blocking]; b != "" {
		a = append(a, "--blocking", b)
	}
	if o.Registration == "Local" || o.Registration == "Symmetric" {
		a = append(a, "--registration", strings.ToLower(string(o.Registration)))
	}
	if o.Split != "" {
		a = append(a, "--split", o.Split)
	}
	if v := o.AllToAllv; v != nil {
		if v.SpreadPercent != nil {
			a = append(a, "--alltoallv-spread-percent", Itoa(*v.SpreadPercent))
		}
		if len(v.TrafficMatrix) > 0 {
			a = append(a, "--alltoallv-matrix", trafficMatrixFlag(v.TrafficMatrix))
		}
	}
	if len(o.IBHCAs) > 0 {
		a = append(a, "--ib-hcas", strings.Join(o.IBHCAs, ","))
	}
	// NCCL's socket traffic (its bootstrap and NET/Socket) goes over the pod's secondary
	// (Multus) interface when it has one.
	if len(side.Networks) > 0 && side.Networks[0].Interface != "" {
		a = append(a, "--socket-ifname", side.Networks[0].Interface)
	}
	return a
}

// ncclBlocking: the data plane's spellings of -z 1, 2 and 3 (None passes nothing).
var ncclBlocking = map[sbv1.NCCLBlocking]string{
	"WaitAndBarrier": "wait_barrier", "Wait": "wait", "WaitUntimedBarrier": "wait_untimed_barrier",
}

// trafficMatrixFlag: the data plane's one-line matrix, rows separated by ';'.
func trafficMatrixFlag(m [][]int64) string {
	rows := make([]string, len(m))
	for i, r := range m {
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = strconv.FormatInt(v, 10)
		}
		rows[i] = strings.Join(cells, " ")
	}
	return strings.Join(rows, ";")
}

func placementFlag(p sbv1.NCCLPlacement) string {
	switch p {
	case "OutOfPlace":
		return "out_of_place"
	case "InPlace":
		return "in_place"
	}
	return "both"
}

func defaulted[T ~string](v, d T) T {
	if v == "" {
		return d
	}
	return v
}

func i64(v, d int64) string {
	if v <= 0 {
		v = d
	}
	return strconv.FormatInt(v, 10)
}
