// nccl_tests_json_fixture: the CPU half of the nccl.tests_json check (nccl_tests_json_check.py).
// It takes the ranks' reports as rank 0 gathers them (each rank's rows in the wire form of
// sweep_rows.hpp, with their per-iteration times, and its device) and writes nccl-tests' JSON
// through the data plane's own path: rows_from_json, merge_ranks, nccl_tests_json. Only the GPU
// is missing, so recorded GPU figures and synthetic ones go through the code a cell runs.
//
//   nccl_tests_json_fixture IN.json OUT.json
//   IN: {"op", "data_type", "reduce_op", "root", "min_bytes", "max_bytes", "step_factor",
//        "iterations", "warmup_iterations", "check_iterations", "placement", "nccl_version",
//        "args", "env", "start_time", "end_time", "errors",
//        "ranks": [{"device": {...RankDevice...}, "rows": [...]}, ...]}   (rank order)
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/nccl_tests_json.hpp"
#include "transports/nccl/sweep_rows.hpp"

using namespace spiral;
using namespace spiral::nccl;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nccl_tests_json_fixture IN.json OUT.json\n");
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    const nlohmann::json j = nlohmann::json::parse(in);
    NcclTestsRun run;
    SweepSpec& s = run.spec;
    s.collective = collective_named(j.at("op").get<std::string>()).id;
    s.type = element_type_named(j.value("data_type", "float"));
    s.op = reduce_op_named(j.value("reduce_op", "sum"));
    s.root = j.value("root", 0);
    s.sweep = {j.at("min_bytes").get<uint64_t>(), j.at("max_bytes").get<uint64_t>(), j.value("step_factor", 2ull), 0};
    s.iterations = j.at("iterations").get<int>();
    s.warmup_iterations = j.value("warmup_iterations", 0);
    s.check_iterations = j.value("check_iterations", 0);
    const std::string placement = j.value("placement", "both");
    s.out_of_place = placement != "in_place";
    s.in_place = placement != "out_of_place";
    run.nccl_version = j.value("nccl_version", "");
    run.args = j.value("args", std::vector<std::string>{});
    run.env = j.value("env", std::vector<std::string>{});
    run.start_time = j.value("start_time", "");
    run.end_time = j.value("end_time", "");
    run.errors = j.value("errors", std::vector<std::string>{});
    for (const auto& rank : j.at("ranks")) {
      run.per_rank.push_back(rows_from_json(rank.at("rows")));
      run.devices.push_back(rank_device_from_json(rank.value("device", nlohmann::json())));
    }
    run.nranks = static_cast<int>(run.per_rank.size());
    run.rows = merge_ranks(run.per_rank, s);
    std::printf("%s\n", write_nccl_tests_json(argv[2], run).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nccl_tests_json_fixture: %s\n", e.what());
    return 1;
  }
}
