#include "config/cell_json.hpp"

#include "config/rate_search_parse.hpp"
#include "kinds/registry.hpp"

namespace spiral {

const char* to_string(Role r) {
  switch (r) {
    case Role::server: return "server";
    case Role::client: return "client";
    case Role::loopback: return "loopback";
    case Role::rank: return "rank";
  }
  return "?";
}

const char* to_string(Workload w) {
  switch (w) {
    case Workload::none: return "none";
    case Workload::fft: return "fft";
    case Workload::gemm: return "gemm";
    case Workload::gemm_fp16: return "gemm_fp16";
  }
  return "?";
}

namespace {

nlohmann::json neutral_value(NeutralKey::Neutral n) {
  switch (n) {
    case NeutralKey::Neutral::off: return false;
    case NeutralKey::Neutral::zero: return 0;
    case NeutralKey::Neutral::empty_list: return nlohmann::json::array();
  }
  return nullptr;
}

// Other kinds' keys at their neutral value (BenchKind::neutral_keys), so every record's cell
// spells out the same keys whatever its transport; the kind's own are already there.
void add_neutral_keys(nlohmann::json& j) {
  const std::string cores = "cores.";
  for (const BenchKind* k : bench_kinds())
    for (const NeutralKey& n : k->neutral_keys) {
      const std::string key = n.key;
      const bool in_cores = key.rfind(cores, 0) == 0;
      nlohmann::json& object = in_cores ? j["cores"] : j;
      const std::string name = in_cores ? key.substr(cores.size()) : key;
      if (!object.contains(name)) object[name] = neutral_value(n.neutral);
    }
}

}  // namespace

nlohmann::json cell_to_json(const Cell& c) {
  nlohmann::json j = {
      {"transport", c.kind->name},
      {"role", to_string(c.role)},
      {"payload_bytes", c.payload_bytes},
      {"pairs", c.pairs},
      {"target_mbps", c.target_mbps},
      {"seconds", static_cast<double>(c.duration_ms) / 1000.0},
      {"warmup_seconds", static_cast<double>(c.warmup_ms) / 1000.0},
      {"repeats", c.repeats},
      {"server_address", c.server_address},
      {"server_addresses", c.server_addresses},
      {"netdevs", c.netdevs},
      {"environment", c.environment},
      {"environment_file", c.environment_file},
      {"bind_address", c.bind_address},
      {"rendezvous", c.rendezvous},
      {"rendezvous_key", c.rendezvous_key},
      {"announce_address", c.announce_address},
      {"base_port", c.base_port},
      {"control_port", c.control_port},
      {"connect_timeout_ms", c.connect_timeout_ms},
      {"accept_timeout_ms", c.accept_timeout_ms},
      {"grace_ms", c.grace_ms},
      {"cores",
       {{"master", c.cores.master},
        {"tx", c.cores.tx},
        {"rx", c.cores.rx}}},
      {"batch", c.batch},
      {"workload", {{"kind", to_string(c.workload)}}},
      {"gemm_n", c.gemm_n},
      {"fft_length", c.fft_length},
      {"workload_batch_bytes", c.workload_batch_bytes},
      {"sync_interval", c.sync_interval},
      {"max_in_flight", c.max_in_flight},
      {"ready_file", c.ready_file},
      {"summary_file", c.summary_file},
      {"csv", c.csv},
      {"csv_file", c.csv_file},
      {"labels", c.labels},
  };
  if (c.search) j["search"] = rate_search_to_json(*c.search);
  if (c.kind->cell_json) c.kind->cell_json(c, j);  // its own keys only where parse_cell accepts them
  for (const KindFlag& f : c.kind->flags)
    if (f.type == KindFlag::Type::core_list) j["cores"][f.key] = c.cores.list(f.key);
  add_neutral_keys(j);
  return j;
}

}  // namespace spiral
