// spiral-nccl-bench: one rank of an NCCL cell, with nccl-tests' options and its table, so the two
// run side by side (hack/bench/nccl-vs-nccl-tests.sh, docs/benchmarks/nccl.md). It runs the same
// code as the data plane's nccl bench kind (transports/nccl/nccl_rank.hpp).
//
//   spiral-nccl-bench --op all_gather -b 8 -e 1G -f 2 -n 20 -w 5 -c 1            one rank, GPU 0
//   spiral-nccl-bench --op sendrecv --rank 1 --nranks 2 --root 10.0.0.1 --port 29500 --device 1
//
// Exit: 0 measured and checked, 3 the check found wrong elements, 4 Invalid (RDMA asked, NCCL
// used sockets), 2 bad options, 1 run failure, 77 no GPU.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <iostream>

#include "sys/errors.hpp"
#include "gpu/cuda/device.hpp"
#include "transports/nccl/alltoallv.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/nccl_rank.hpp"
#include "transports/nccl/split.hpp"
#include "transports/nccl/sweep_rows.hpp"

using namespace spiral;
using namespace spiral::nccl;

namespace {

void print_outcome(const RankRun& run, const RankOutcome& out) {
  const auto& coll = info(run.spec.collective);
  std::printf("# spiral-nccl-bench %s: rank %d of %d, device %d, NCCL %s\n", std::string(coll.name).c_str(),
              run.place.rank, run.place.nranks, run.place.device, out.nccl_version.c_str());
  std::printf("# iterations %d, warm-up %d, check %d, unalign %d, blocking %d, timeout %d s, registration %d\n",
              run.spec.iterations, run.spec.warmup_iterations, run.spec.check_iterations, run.spec.unalign,
              static_cast<int>(run.spec.blocking), run.spec.timeout_s, static_cast<int>(run.spec.registration));
  std::fputs(format_table(out.rows, run.spec).c_str(), stdout);
  std::printf("# per iteration (CUDA events, a pass of its own): size placement p50_us p99_us slowest_rank its_time_us\n");
  for (const auto& r : out.rows)
    std::printf("#  %12llu %3s %10.2f %10.2f %3d %10.2f\n", static_cast<unsigned long long>(r.bytes),
                r.in_place ? "in" : "out", r.p50_us, r.p99_us, r.slowest_rank, r.slowest_time_us);
  std::printf("# network: %s%s\n", out.transports.network.empty() ? "(none used)" : out.transports.network.c_str(),
              out.transports.net_devices.empty() ? "" : (" on " + out.transports.net_devices.front() + " ...").c_str());
  for (const auto& c : out.transports.connections)
    std::printf("# transport: rank %d -> rank %d %s (%s, %d channel lines)\n", c.from, c.to,
                transport_name(c).c_str(), c.via.c_str(), c.channels);
  std::printf("# check: %s\n", out.check_passed ? "OK" : "FAILED (wrong elements above)");
  if (!out.invalid_reason.empty()) std::printf("# Invalid: %s\n", out.invalid_reason.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spiral-nccl-bench: one rank of an NCCL collective sweep, as nccl-tests measures it"};
  RankRun run;
  std::string op = "all_reduce", type = "float", redop = "sum", min = "8", max = "128M", json_path;
  uint64_t factor = 2;
  std::string step = "0";
  int64_t bootstrap_ms = run.bootstrap_timeout.count();
  std::string placement = "both";
  int blocking = 0, registration = 0;
  app.add_option("--op", op, "sendrecv, all_gather, all_reduce, broadcast, reduce, reduce_scatter, alltoall");
  app.add_option("-b,--minbytes", min, "smallest size (8, 64K, 128M, 1G)");
  app.add_option("-e,--maxbytes", max, "largest size");
  app.add_option("-f,--stepfactor", factor, "size factor between steps (1: use --stepbytes)");
  app.add_option("-i,--stepbytes", step, "size increment when the factor is 1");
  app.add_option("-n,--iters", run.spec.iterations, "timed operations per size and placement")->check(CLI::PositiveNumber);
  app.add_option("-w,--warmup_iters", run.spec.warmup_iterations, "untimed operations per size first")->check(CLI::NonNegativeNumber);
  app.add_option("-c,--check", run.spec.check_iterations, "checked operations per size and placement (0: none)")->check(CLI::NonNegativeNumber);
  app.add_option("-d,--datatype", type, "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16");
  app.add_option("-o,--op_type", redop, "sum, prod, max, min, avg");
  app.add_option("-r,--root", run.spec.root, "root rank of broadcast and reduce");
  app.add_option("--placement", placement, "both, out_of_place or in_place")->check(CLI::IsMember({"both", "out_of_place", "in_place"}));
  app.add_option("-u,--unalign", run.spec.unalign, "buffers start this many elements off alignment")->check(CLI::Range(0, 1024));
  app.add_option("-z,--blocking", blocking, "0 none; after every operation: 1 wait and barrier, 2 wait, 3 wait (barrier untimed)")
      ->check(CLI::Range(0, 3));
  app.add_option("-T,--timeout", run.spec.timeout_s, "abort when a wait for the GPU takes longer (seconds; 0 none)")
      ->check(CLI::Range(0, 86400));
  app.add_option("-R,--local_register", registration, "register buffers: 0 none, 1 local, 2 symmetric (NCCL >= 2.27)")
      ->check(CLI::Range(0, 2));
  // alltoallv's traffic, also from nccl-tests' own variables so one environment drives both
  double spread = 1.0;
  std::string matrix_file;
  if (const char* v = std::getenv("NCCL_TESTS_ALLTOALLV_SPREAD")) spread = std::atof(v);
  if (const char* v = std::getenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE")) matrix_file = v;
  app.add_option("--alltoallv-spread", spread, "alltoallv: 0 uniform .. 1 distance-weighted (NCCL_TESTS_ALLTOALLV_SPREAD)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--alltoallv-matrix-file", matrix_file, "alltoallv: traffic matrix, bytes i->j (NCCL_TESTS_ALLTOALLV_MATRIX_FILE)");
  // NCCL_TESTS_SPLIT as nccl-tests reads it (there under MPI only); NCCL_TESTS_SPLIT_MASK=v is "&v" in hexadecimal
  std::string split;
  if (const char* v = std::getenv("NCCL_TESTS_SPLIT")) split = v;
  if (const char* v = std::getenv("NCCL_TESTS_SPLIT_MASK")) {
    const std::string mask = v;
    split = "&0x" + (mask.rfind("0x", 0) == 0 || mask.rfind("0X", 0) == 0 ? mask.substr(2) : mask);
  }
  app.add_option("--split", split, "ranks in groups, each its own communicator: AND|OR|MOD|DIV value (NCCL_TESTS_SPLIT)");
  app.add_option("--rank", run.place.rank, "this process's rank");
  app.add_option("--nranks", run.place.nranks, "ranks in the cell")->check(CLI::PositiveNumber);
  app.add_option("--device", run.place.device, "CUDA device of this rank");
  app.add_option("--root-host", run.root_host, "rank 0's address (ranks > 0)");
  app.add_option("--port", run.port, "rank 0's control port");
  app.add_option("--cell", run.cell, "cell name (ranks of other cells are refused)");
  app.add_option("--bootstrap-timeout-ms", bootstrap_ms, "every rank must arrive within this");
  app.add_option("--rdma-devices", run.network.rdma_devices, "NCCL_IB_HCA, exact names")->delimiter(',');
  app.add_option("--socket-ifname", run.network.socket_interface, "NCCL_SOCKET_IFNAME, exact name");
  app.add_flag("--require-rdma", run.network.require_rdma, "Invalid (exit 4) when NCCL connects over NET/Socket");
  app.add_option("--json", json_path, "also write the outcome as JSON here");
  app.add_option("-J,--output_file", run.nccl_tests_json,
                 "rank 0: also write nccl-tests' JSON (schema 3, per-iteration times) to this file");
  CLI11_PARSE(app, argc, argv);

  try {
    run.spec.collective = collective_named(op).id;
    run.spec.type = element_type_named(type);
    run.spec.op = reduce_op_named(redop);
    run.spec.sweep = {parse_size(min), parse_size(max), factor, parse_size(step)};
    run.spec.out_of_place = placement != "in_place";
    run.spec.in_place = placement != "out_of_place";
    run.spec.blocking = static_cast<Blocking>(blocking);
    run.spec.registration = static_cast<Registration>(registration);
    run.spec.alltoallv.spread = std::clamp(spread, 0.0, 1.0);
    if (!matrix_file.empty()) {
      std::ifstream in(matrix_file);
      if (!in) throw BadInput("cannot read the traffic matrix " + matrix_file);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      run.spec.alltoallv = parse_traffic_matrix(text);
    }
    run.spec.split = parse_split(split);
    if (const auto why = split_refusal(run.spec.split, run.place.nranks, run.spec.root); !why.empty())
      throw BadInput("split: " + why);
    if (run.spec.collective == Collective::all_to_all_v) {
      const auto why = alltoallv_refusal(run.spec.alltoallv, run.place.nranks, run.spec.sweep.min_bytes,
                                         run.spec.sweep.max_bytes);
      if (!why.empty()) throw BadInput("alltoallv: " + why);
    }
    run.bootstrap_timeout = Millis(bootstrap_ms);
    if (run.place.rank < 0 || run.place.rank >= run.place.nranks) throw BadInput("--rank must be below --nranks");
    std::string why;
    if (!gpu::probe_device(why)) {
      std::fprintf(stderr, "spiral-nccl-bench: no usable GPU: %s\n", why.c_str());
      return 77;
    }
    const RankOutcome out = run_rank(run);
    print_outcome(run, out);
    if (!json_path.empty()) {
      std::ofstream(json_path) << nlohmann::json{{"op", op}, {"rank", run.place.rank}, {"nranks", run.place.nranks},
                                                  {"nccl_version", out.nccl_version}, {"rows", to_json(out.rows)},
                                                  {"transports", to_json(out.transports)},
                                                  {"check_passed", out.check_passed},
                                                  {"invalid_reason", out.invalid_reason}}
                                      .dump()
                               << "\n";
    }
    if (!out.nccl_tests_json.empty()) std::printf("# Writing JSON output to %s\n", out.nccl_tests_json.c_str());
    if (!out.invalid_reason.empty()) return 4;
    return out.check_passed ? 0 : 3;
  } catch (const BadInput& e) {
    std::fprintf(stderr, "spiral-nccl-bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiral-nccl-bench: %s\n", e.what());
    return 1;
  }
}
