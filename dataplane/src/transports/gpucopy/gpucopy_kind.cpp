// gpucopy: H2D, D2H and D2D copies of every GPU of the pod over a size sweep, with each GPU's
// NUMA node and PCIe link (docs/nccl.md, "The copy bench"); seed 001's bandwidthTest per device;
// then copies between every ordered pair of GPUs and all GPUs with the host at once.
#include "transports/gpucopy/gpucopy_kind.hpp"

#include <any>
#include <nlohmann/json.hpp>

#include "kinds/size_sweep_flags.hpp"
#include "metrics/run_result.hpp"
#include "transports/gpucopy/cell_run.hpp"
#include "transports/gpucopy/gpucopy_options.hpp"
#include "transports/gpucopy/peer_summary.hpp"

namespace spiral::gpucopy {

namespace {

void parse(const ObjectReader& r, Cell& c) { c.options = parse_copy_options(r); }

void cell_json(const Cell& c, nlohmann::json& j) {
  const CopySpec& s = copy_options(c);
  auto directions = nlohmann::json::array(), memories = nlohmann::json::array();
  for (Direction d : s.directions) directions.push_back(std::string(name(d)));
  for (HostMemory m : s.memories) memories.push_back(std::string(name(m)));
  j["directions"] = directions;
  j["host_memory"] = memories;
  j["min_bytes"] = s.sweep.min_bytes;
  j["max_bytes"] = s.sweep.max_bytes;
  j["step_factor"] = s.sweep.factor;
  j["iterations"] = s.iterations;
  auto methods = nlohmann::json::array(), modes = nlohmann::json::array(), aggregate = nlohmann::json::array();
  for (PeerMethod m : s.peer.methods) methods.push_back(std::string(name(m)));
  for (PeerMode m : s.peer.modes) modes.push_back(std::string(name(m)));
  for (HostDirection d : s.peer.aggregate) aggregate.push_back(std::string(name(d)));
  j["peer_methods"] = methods;
  j["peer_modes"] = modes;
  j["peer_bytes"] = s.peer.bytes;
  j["aggregate"] = aggregate;
  auto tests = nlohmann::json::array(), latency = nlohmann::json::array();
  for (LocalTest t : s.local.tests) tests.push_back(std::string(name(t)));
  for (LatencyTarget t : s.local.latency) latency.push_back(std::string(name(t)));
  j["local_tests"] = tests;
  j["latency"] = latency;
  j["local_bytes"] = s.local.bytes;
  j["local_repeats"] = s.local.repeats;
}

uint32_t one(const Cell&) { return 1; }

void summary_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& j) {
  if (const auto* f = std::any_cast<nlohmann::json>(&r.figures)) {
    nlohmann::json part = *f;
    fit_summary(part, 4096 - 900);  // 900: the summary's other fields
    j["gpucopy"] = part;
  }
}

void record_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& j) {
  if (const auto* f = std::any_cast<nlohmann::json>(&r.figures)) j["gpucopy"] = *f;
}

std::optional<std::string> verdict(const Cell&, const RunResult&) { return std::nullopt; }

BenchKind describe() {
  using T = KindFlag::Type;
  BenchKind k;
  k.name = "gpucopy";
  k.backend = "cuda";
  k.drops_kind = "none";
  k.run_mode = RunMode::ranks;
  k.keys = kCopyKeys;
  k.flags = {
      {"--directions", "directions", T::text, "h2d,d2h,d2d (comma-separated)"},
      {"--host-memory", "host_memory", T::text, "pinned,pageable (comma-separated)"},
      {"--devices", "devices", T::text, "CUDA devices, comma-separated (default: every visible GPU)"},
      {"--peer-methods", "peer_methods", T::text, "GPU-to-GPU copies: ce (copy engines), sm (copy kernel), or none"},
      {"--peer-modes", "peer_modes", T::text, "uni (one direction), bi (both at once); comma-separated"},
      {"--peer-bytes", "peer_bytes", T::text, "sizes of the GPU-to-GPU copies (256M; comma-separated)"},
      {"--aggregate", "aggregate", T::text, "all GPUs with the host at once: h2d,d2h or none"},
      {"--local-tests", "local_tests", T::text, "each GPU alone: sm_read, sm_write (SM read-only, write-only) or none"},
      {"--latency", "latency", T::text, "pointer-chase latency of device, host, peer memory (comma-separated) or none"},
      {"--local-bytes", "local_bytes", T::integer, "bytes per SM read or write pass (512M)"},
      {"--local-repeats", "local_repeats", T::integer, "measure the local figures this many times: median and CV (1)"},
  };
  add_size_sweep_flags(k.flags);
  k.parse = parse;
  k.cell_json = cell_json;
  k.local_ranks = one;
  k.run_rank = run_copy_cell;
  k.verdict = verdict;
  k.summary_fields = summary_fields;
  k.record_fields = record_fields;
  return k;
}

}  // namespace

const BenchKind& kind() {
  static const BenchKind k = describe();
  return k;
}

}  // namespace spiral::gpucopy
