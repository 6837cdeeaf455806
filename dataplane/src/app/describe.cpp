#include "app/describe.hpp"

#include "kinds/bench_kind.hpp"
#include "kinds/registry.hpp"

namespace spiral {

namespace {

const char* run_mode_name(RunMode m) {
  switch (m) {
    case RunMode::two_sided: return "two_sided";
    case RunMode::in_process: return "in_process";
    case RunMode::ranks: return "ranks";
  }
  return "?";
}

}  // namespace

nlohmann::ordered_json describe_kinds() {
  nlohmann::ordered_json out;
#if SPIRAL_HAVE_CUDA  // defined (1) by src/gpu/gpu.cmake in CUDA builds only
  out["cuda"] = true;
#else
  out["cuda"] = false;  // GPU workloads and GPU forward work are refused as input
#endif
  out["kinds"] = nlohmann::ordered_json::array();
  for (const BenchKind* k : bench_kinds()) {
    nlohmann::ordered_json j;
    j["name"] = k->name;
    j["backend"] = k->backend;
    j["drops_kind"] = k->drops_kind;
    j["daqiri_counts_receiver"] = k->daqiri_counts_receiver;
    j["sequenced"] = k->sequenced;
    j["socket_retrans"] = k->socket_retrans;
    j["repeats_in_one_process"] = k->repeats_in_one_process;
    j["rate_search"] = k->rate_search;
    j["multi_link"] = k->multi_link;
    j["run_mode"] = run_mode_name(k->run_mode);
    j["flags"] = nlohmann::ordered_json::array();
    for (const KindFlag& f : k->flags) j["flags"].push_back(f.flag);
    j["vocabulary"] = nlohmann::ordered_json::object();
    if (k->vocabulary) k->vocabulary(j["vocabulary"]);
    out["kinds"].push_back(std::move(j));
  }
  return out;
}

}  // namespace spiral
