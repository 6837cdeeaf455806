// nccl: one NCCL collective swept over message sizes, one rank per GPU, as nccl-tests measures it
// (docs/nccl.md). A pod runs its GPUs' ranks (run/ranks.cpp); NCCL rank 0 gathers every rank's
// rows and reports the cell: its figures are the summary's "nccl" part.
#include "transports/nccl/nccl_kind.hpp"

#include <any>
#include <cmath>
#include <nlohmann/json.hpp>

#include "kinds/size_sweep_flags.hpp"
#include "metrics/run_result.hpp"
#include "transports/nccl/cell_rank.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/nccl_options.hpp"
#include "transports/nccl/summary_part.hpp"

namespace spiral::nccl {

namespace {

void parse(const ObjectReader& r, Cell& c) { c.options = parse_nccl_options(r, c); }

void cell_json(const Cell& c, nlohmann::json& j) {
  const NcclOptions& o = nccl_options(c);
  j["op"] = std::string(info(o.spec.collective).name);
  j["min_bytes"] = o.spec.sweep.min_bytes;
  j["max_bytes"] = o.spec.sweep.max_bytes;
  j["step_factor"] = o.spec.sweep.factor;
  j["iterations"] = o.spec.iterations;
  j["warmup_iterations"] = o.spec.warmup_iterations;
  j["check_iterations"] = o.spec.check_iterations;
  j["data_type"] = std::string(info(o.spec.type).name);
  j["reduce_op"] = std::string(name(o.spec.op));
  j["root"] = o.spec.root;
  j["gpus"] = o.gpus;
  j["first_rank"] = o.first_rank;
  j["nranks"] = o.nranks;
  j["network"] = to_string(o.network);
  // nccl-tests' -T -u -z -R, echoed only when set (the record of a default cell is unchanged)
  if (o.spec.timeout_s > 0) j["timeout_s"] = o.spec.timeout_s;
  if (o.spec.unalign > 0) j["unalign"] = o.spec.unalign;
  if (o.spec.blocking != Blocking::none) j["blocking"] = to_string(o.spec.blocking);
  if (o.spec.registration != Registration::none) j["registration"] = to_string(o.spec.registration);
  if (o.spec.split.active()) j["split"] = to_string(o.spec.split);
  if (o.spec.collective == Collective::all_to_all_v) {
    if (o.spec.alltoallv.from_matrix()) {  // as the key reads it: rows separated by ';'
      std::string text;
      for (size_t i = 0; i < o.spec.alltoallv.matrix.size(); ++i) {
        if (i > 0) text.push_back(i % o.spec.alltoallv.dim ? ' ' : ';');
        text.append(std::to_string(o.spec.alltoallv.matrix[i]));
      }
      j["alltoallv_matrix"] = text;
    } else {
      j["alltoallv_spread_percent"] = static_cast<int>(std::lround(o.spec.alltoallv.spread * 100));
    }
  }
}

uint32_t local_ranks(const Cell& c) { return static_cast<uint32_t>(nccl_options(c).gpus); }

const nlohmann::json* figures(const RunResult& r) { return std::any_cast<nlohmann::json>(&r.figures); }

void summary_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& j) {
  const nlohmann::json* f = figures(r);
  if (!f) return;
  // The termination message holds 4 KiB, about 900 bytes of it the summary's other fields.
  j["nccl"] = fit_summary_part(*f, 4096 - 900);
}

void record_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& j) {
  if (const nlohmann::json* f = figures(r)) j["nccl"] = *f;
}

// The ranks judge themselves (rank 0: RDMA asked and sockets used, wrong elements); nothing is
// left to judge from the combined counters.
std::optional<std::string> verdict(const Cell&, const RunResult&) { return std::nullopt; }

// The spellings of op, data_type and reduce_op, from the tables that parse them.
void vocabulary(nlohmann::ordered_json& out) {
  for (const CollectiveInfo& c : collectives()) out["op"].push_back(std::string(c.name));
  for (const ElementTypeInfo& t : element_types()) out["data_type"].push_back(std::string(t.name));
  for (std::string_view op : reduce_op_names()) out["reduce_op"].push_back(std::string(op));
}

BenchKind describe() {
  using T = KindFlag::Type;
  BenchKind k;
  k.name = "nccl";
  k.backend = "nccl";
  k.drops_kind = "none";
  k.run_mode = RunMode::ranks;
  k.keys = kNcclKeys;
  k.flags = {
      {"--op", "op", T::text,
       "sendrecv | all_gather | all_reduce | broadcast | reduce | reduce_scatter | alltoall | alltoallv"},
      {"--check-iterations", "check_iterations", T::integer, "checked operations per size and placement (-c)"},
      {"--data-type", "data_type", T::text, "int8 ... bfloat16 (nccl-tests -d)"},
      {"--reduce-op", "reduce_op", T::text, "sum | prod | max | min | avg (nccl-tests -o)"},
      {"--root", "root", T::integer, "root rank of broadcast and reduce"},
      {"--placement", "placement", T::text, "both | out_of_place | in_place"},
      {"--network", "network", T::text, "auto | rdma (Invalid over NET/Socket) | socket"},
      {"--ib-hcas", "ib_hcas", T::text, "NCCL_IB_HCA names, comma-separated (default: the visible RDMA devices)"},
      {"--socket-ifname", "socket_ifname", T::text, "NCCL_SOCKET_IFNAME (the pod's secondary interface)"},
      {"--gpus", "gpus", T::integer, "GPUs of this pod: one rank (process) each"},
      {"--first-rank", "first_rank", T::integer, "NCCL rank of this pod's first GPU"},
      {"--nranks", "nranks", T::integer, "NCCL ranks of the cell"},
      {"--bootstrap-timeout-ms", "bootstrap_timeout_ms", T::integer, "every rank must reach rank 0 within this"},
      {"--nccl-tests-json", "nccl_tests_json", T::text,
       "rank 0 also writes nccl-tests' JSON (-J, schema 3, per-iteration times) to this file"},
      {"--timeout-s", "timeout_s", T::integer, "abort when a wait for the GPU takes longer (nccl-tests -T); 0 none"},
      {"--unalign", "unalign", T::integer, "buffers start this many elements off alignment (nccl-tests -u)"},
      {"--blocking", "blocking", T::text, "none | wait_barrier | wait | wait_untimed_barrier (nccl-tests -z 0..3)"},
      {"--registration", "registration", T::text, "none | local | symmetric (nccl-tests -R 0..2; symmetric: NCCL >= 2.27)"},
      {"--split", "split", T::text, "ranks in groups, each its own communicator: AND|OR|MOD|DIV value (NCCL_TESTS_SPLIT)"},
      {"--alltoallv-spread-percent", "alltoallv_spread_percent", T::integer,
       "alltoallv: 0 uniform .. 100 distance-weighted (nccl-tests' NCCL_TESTS_ALLTOALLV_SPREAD x 100)"},
      {"--alltoallv-matrix", "alltoallv_matrix", T::text,
       "alltoallv: bytes from rank i to j, rows separated by ';' (nccl-tests' traffic matrix file)"},
  };
  add_size_sweep_flags(k.flags);
  k.parse = parse;
  k.cell_json = cell_json;
  k.local_ranks = local_ranks;
  k.run_rank = run_cell_rank;
  k.verdict = verdict;
  k.summary_fields = summary_fields;
  k.record_fields = record_fields;
  k.vocabulary = vocabulary;
  return k;
}

}  // namespace

const BenchKind& kind() {
  static const BenchKind k = describe();
  return k;
}

}  // namespace spiral::nccl
