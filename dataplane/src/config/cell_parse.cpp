#include "config/cell_parse.hpp"

#include <arpa/inet.h>

#include <fstream>
#include <set>
#include <sstream>

#include "config/object_reader.hpp"
#include "config/rate_search_parse.hpp"
#include "kinds/registry.hpp"
#include "sys/errors.hpp"

namespace spiral {
namespace {

using nlohmann::json;

void require_ipv4(const std::string& path, const std::string& value) {
  in_addr a{};
  if (inet_pton(AF_INET, value.c_str(), &a) != 1) refuse_key(path, "must be an IPv4 address, got \"" + value + "\"");
}

std::vector<int> core_list(const ObjectReader& r, const std::string& key) {
  const json* v = r.get(key);
  if (!v) return {};
  if (!v->is_array() || v->size() > 1024) refuse_key(r.key_path(key), "must be a list of core numbers, got " + shown(*v));
  std::vector<int> cores;
  for (size_t i = 0; i < v->size(); ++i)
    cores.push_back(static_cast<int>(
        ObjectReader::checked_integer((*v)[i], r.key_path(key) + "[" + std::to_string(i) + "]", 0, 4095)));
  return cores;
}

// The core_list keys of every kind (raw's "tx_workers"): the "cores" object takes them all, so
// that another kind's list at its neutral value ([]) passes (refuse_foreign_keys).
std::set<std::string> kind_core_keys() {
  std::set<std::string> keys;
  for (const BenchKind* k : bench_kinds())
    for (const KindFlag& f : k->flags)
      if (f.type == KindFlag::Type::core_list) keys.insert(f.key);
  return keys;
}

bool owns_core_list(const BenchKind& kind, const std::string& key) {
  for (const KindFlag& f : kind.flags)
    if (f.type == KindFlag::Type::core_list && key == f.key) return true;
  return false;
}

CoreMap parse_cores(const json& j, const BenchKind& kind) {
  std::set<std::string> keys = kind_core_keys();
  keys.insert({"master", "tx", "rx"});
  ObjectReader r(j, "cores", keys);
  CoreMap c;
  c.master = static_cast<int>(r.integer("master", -1, 4095, -1));
  c.tx = core_list(r, "tx");
  c.rx = core_list(r, "rx");
  for (const KindFlag& f : kind.flags)
    if (f.type == KindFlag::Type::core_list && r.has(f.key)) c.own[f.key] = core_list(r, f.key);
  return c;
}

Workload parse_workload(const json& j) {
  ObjectReader r(j, "workload", {"kind"});
  std::string kind = r.text("kind", 64, "none");
  if (kind == "none") return Workload::none;
  if (kind == "fft" || kind == "gemm" || kind == "gemm_fp16") {
#if !SPIRAL_HAVE_CUDA  // defined (1) by src/gpu/gpu.cmake in CUDA builds only
    refuse_key("workload.kind", "is \"" + kind + "\", which needs a GPU: this spiral-dataplane was built without CUDA");
#endif
    return kind == "fft" ? Workload::fft : kind == "gemm" ? Workload::gemm : Workload::gemm_fp16;
  }
  refuse_key("workload.kind", "must be none, fft, gemm or gemm_fp16, got \"" + kind + "\"");
}

// The GPU workload's settings (top-level keys, one per flag); checked whatever the workload.
void parse_workload_settings(const ObjectReader& r, Cell& c) {
  c.gemm_n = static_cast<uint32_t>(r.integer("gemm_n", 16, 16384, c.gemm_n));
  c.fft_length = static_cast<uint32_t>(r.integer("fft_length", 2, 65536, c.fft_length));
  if ((c.fft_length & (c.fft_length - 1)) != 0)
    refuse_key("fft_length", "must be a power of two, got " + std::to_string(c.fft_length));
  c.workload_batch_bytes = static_cast<uint64_t>(r.integer("workload_batch_bytes", 0, 1ll << 30, 0));
  c.sync_interval = static_cast<uint32_t>(r.integer("sync_interval", 1, 1024, c.sync_interval));
  c.sync_interval_given = r.has("sync_interval");
  c.max_in_flight = static_cast<uint32_t>(r.integer("max_in_flight", 1, 64, c.max_in_flight));
}

// A list of at most kMaxLinks strings of at most max_len characters each.
std::vector<std::string> parse_text_list(const std::string& key, const json& j, size_t max_len) {
  if (!j.is_array() || j.size() > kMaxLinks)
    refuse_key(key, "must be a list of at most " + std::to_string(kMaxLinks) + " strings, got " + shown(j));
  std::vector<std::string> out;
  for (const auto& v : j) {
    if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > max_len)
      refuse_key(key, "entries must be strings of 1 to " + std::to_string(max_len) + " characters, got " + shown(v));
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> parse_labels(const json& j) {
  if (!j.is_object()) refuse_key("labels", "must be an object of strings, got " + shown(j));
  if (j.size() > 32) refuse_key("labels", "has more than 32 entries");
  std::map<std::string, std::string> labels;
  for (const auto& item : j.items()) {
    const std::string path = "labels." + item.key();
    if (item.key().empty() || item.key().size() > 63) refuse_key(path, "key must be 1..63 characters");
    if (!item.value().is_string()) refuse_key(path, "must be a string, got " + shown(item.value()));
    auto value = item.value().get<std::string>();
    if (value.size() > 253) refuse_key(path, "is longer than 253 characters");
    labels[item.key()] = std::move(value);
  }
  return labels;
}

const std::set<std::string> kCommonKeys = {
    "transport", "role", "payload_bytes", "pairs", "target_mbps", "seconds", "warmup_seconds", "repeats",
    "server_address", "bind_address", "base_port", "control_port", "connect_timeout_ms", "accept_timeout_ms",
    "grace_ms", "cores", "batch", "workload",
    "gemm_n", "fft_length", "workload_batch_bytes", "sync_interval", "max_in_flight", "ready_file",
    "summary_file", "csv", "csv_file", "labels", "search", "server_addresses", "netdevs", "environment",
    "environment_file", "rendezvous", "rendezvous_key", "announce_address"};

}  // namespace

const std::set<std::string>& common_cell_keys() { return kCommonKeys; }

namespace {

std::set<std::string> every_key() {
  std::set<std::string> keys = kCommonKeys;
  for (const BenchKind* k : bench_kinds()) keys.insert(k->keys.begin(), k->keys.end());
  return keys;
}

const BenchKind& parse_kind(const ObjectReader& r) {
  if (!r.has("transport")) throw BadInput("cell: \"transport\" is required (" + kind_names() + ")");
  const std::string name = r.text("transport", 32, "");
  if (const BenchKind* k = find_kind(name)) return *k;
  refuse_key("transport", "must be " + kind_names() + ", got \"" + name + "\"");
}

// The kinds that own `key` (a top-level key, or a core list when in_cores), as "raw" or "tcp and udp".
std::string owner_names(const std::string& key, bool in_cores) {
  std::vector<std::string> owners;
  for (const BenchKind* k : bench_kinds())
    if (in_cores ? owns_core_list(*k, key) : k->keys.count(key) > 0) owners.push_back(k->name);
  std::string names = owners.front();
  for (size_t i = 1; i < owners.size(); ++i) names += (i + 1 == owners.size() ? " and " : ", ") + owners[i];
  return std::string("applies to transport") + (owners.size() > 1 ? "s " : " ") + names + " only";
}

// The NeutralKey an owner of `path` declares, null when none does.
const NeutralKey* neutral_key(const std::string& path) {
  for (const BenchKind* k : bench_kinds())
    for (const NeutralKey& n : k->neutral_keys)
      if (path == n.key) return &n;
  return nullptr;
}

bool is_neutral(const json& v, NeutralKey::Neutral n) {
  switch (n) {
    case NeutralKey::Neutral::off: return v.is_boolean() && !v.get<bool>();
    case NeutralKey::Neutral::zero: return v.is_number() && v == 0;
    case NeutralKey::Neutral::empty_list: return v.is_array() && v.empty();
  }
  return false;
}

// A key that belongs to other kinds, refused with the names of its owners, or with its owner's
// refusal unless it holds its neutral value (NeutralKey).
void refuse_foreign_key(const std::string& key, const json& value, bool in_cores) {
  const std::string path = in_cores ? "cores." + key : key;
  const NeutralKey* n = neutral_key(path);
  if (!n) refuse_key(path, owner_names(key, in_cores));
  if (!is_neutral(value, n->neutral)) refuse_key(path, n->refusal);
}

void refuse_foreign_keys(const Cell& c, const ObjectReader& r) {
  std::set<std::string> foreign;
  for (const BenchKind* k : bench_kinds())
    for (const auto& key : k->keys)
      if (!c.kind->keys.count(key) && r.has(key)) foreign.insert(key);
  for (const auto& key : foreign) refuse_foreign_key(key, *r.get(key), false);
  const json* cores = r.get("cores");
  if (!cores) return;
  for (const std::string& key : kind_core_keys())
    if (!owns_core_list(*c.kind, key) && cores->contains(key)) refuse_foreign_key(key, (*cores)[key], true);
}

// Rules that involve more than one key: the kind's own, then those of the run mode.
void check_combinations(const Cell& c, const ObjectReader& r) {
  refuse_foreign_keys(c, r);
  if (c.kind->check) c.kind->check(c, r);
  if (c.role == Role::client && c.netdevs.size() > 1 && c.server_addresses.empty())
    refuse_key("netdevs", "names several interfaces, but the client drives one link: give server_addresses, one per interface");
  if ((c.server_addresses.size() > 1 || c.netdevs.size() > 1) && !c.kind->multi_link)
    refuse_key(c.server_addresses.size() > 1 ? "server_addresses" : "netdevs", "names several links, but transport " + c.kind->name +
                                       " drives one link per run (docs/wire.md \"Several links\"): give one");
  if (c.repeats > 1 && (!c.kind->repeats_in_one_process || c.role == Role::rank))
    refuse_key("repeats", "must be 1 for transport " + c.kind->name + ": it runs one repeat per process");
  if (c.kind->run_mode != RunMode::two_sided) return;  // no data or control ports
  if (uint32_t{c.base_port} + c.pairs - 1 > 65535)
    refuse_key("base_port", "leaves no room for " + std::to_string(c.pairs) + " pairs below port 65535");
  if (c.control_port >= c.base_port && c.control_port < uint32_t{c.base_port} + c.pairs)
    refuse_key("control_port", "must not be one of the data ports " + std::to_string(c.base_port) + ".." +
                             std::to_string(c.base_port + c.pairs - 1));
}

}  // namespace

Cell parse_cell(const json& j) {
  ObjectReader r(j, "", every_key());
  Cell c;
  c.kind = &parse_kind(r);

  if (!r.has("role")) throw BadInput("cell: \"role\" is required (server, client, loopback or rank)");
  const std::string role = r.text("role", 16, "");
  if (role == "server") c.role = Role::server;
  else if (role == "client") c.role = Role::client;
  else if (role == "loopback") c.role = Role::loopback;
  else if (role == "rank") c.role = Role::rank;
  else refuse_key("role", "must be server, client, loopback or rank, got \"" + role + "\"");
  if ((c.role == Role::rank) != (c.kind->run_mode == RunMode::ranks) && c.role != Role::loopback)
    refuse_key("role", c.role == Role::rank ? "is rank, which only kinds that run as ranks take (" + c.kind->name + " does not)"
                                            : "is " + role + ", but " + c.kind->name + " runs as ranks: use role rank (or loopback)");

  c.payload_bytes = static_cast<uint32_t>(r.integer("payload_bytes", 1, kMaxPayloadBytes, c.payload_bytes));
  c.pairs = static_cast<uint32_t>(r.integer("pairs", 1, kMaxPairs, c.pairs));
  c.target_mbps = static_cast<uint64_t>(r.integer("target_mbps", 0, 100'000'000, 0));
  c.duration_ms = r.millis_from_seconds("seconds", false, c.duration_ms);
  c.warmup_ms = r.millis_from_seconds("warmup_seconds", true, c.warmup_ms);
  c.repeats = static_cast<uint32_t>(r.integer("repeats", 1, kMaxRepeatsPerProcess, c.repeats));
  c.server_address = r.text("server_address", 253, c.server_address);
  if (c.server_address.empty()) refuse_key("server_address", "must not be empty");
  c.bind_address = r.text("bind_address", 15, c.bind_address);
  if (const json* a = r.get("server_addresses")) c.server_addresses = parse_text_list("server_addresses", *a, 253);
  if (const json* n = r.get("netdevs")) c.netdevs = parse_text_list("netdevs", *n, 15);
  if (!c.server_addresses.empty() && !c.netdevs.empty() && c.server_addresses.size() != c.netdevs.size())
    refuse_key("netdevs", "names " + std::to_string(c.netdevs.size()) + " interfaces for " +
                              std::to_string(c.server_addresses.size()) + " server_addresses: give one per link");
  c.environment = r.boolean("environment", false);
  c.environment_file = r.text("environment_file", 4096, "");
  require_ipv4("bind_address", c.bind_address);
  c.rendezvous = r.text("rendezvous", 262, "");
  c.rendezvous_key = r.text("rendezvous_key", 64, "");
  c.announce_address = r.text("announce_address", 15, "");
  if (!c.announce_address.empty()) require_ipv4("announce_address", c.announce_address);
  if (c.rendezvous.empty() && (!c.rendezvous_key.empty() || !c.announce_address.empty()))
    refuse_key(c.rendezvous_key.empty() ? "announce_address" : "rendezvous_key", "needs rendezvous, the operator's host:port");
  if (!c.rendezvous.empty() && c.rendezvous_key.empty())
    refuse_key("rendezvous_key", "must name rank 0's pod UID when rendezvous is given");
  if (!c.rendezvous.empty()) {
    const auto colon = c.rendezvous.rfind(':');
    const std::string port = colon == std::string::npos ? "" : c.rendezvous.substr(colon + 1);
    if (colon == 0 || port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
      refuse_key("rendezvous", "must be host:port with a port in 1..65535");
    c.rendezvous_host = c.rendezvous.substr(0, colon);
    c.rendezvous_port = static_cast<uint16_t>(std::stoi(port));
  }
  c.base_port = static_cast<uint16_t>(r.integer("base_port", 1, 65535, c.base_port));
  if (r.has("control_port")) {
    c.control_port = static_cast<uint16_t>(r.integer("control_port", 1, 65535, 0));
  } else {
    if (c.base_port < 2) refuse_key("base_port", "must be at least 2 unless control_port is set (it defaults to base_port - 1)");
    c.control_port = static_cast<uint16_t>(c.base_port - 1);
  }
  c.connect_timeout_ms = static_cast<uint32_t>(r.integer("connect_timeout_ms", 1, 3'600'000, c.connect_timeout_ms));
  c.accept_timeout_ms = static_cast<uint32_t>(r.integer("accept_timeout_ms", 1, 86'400'000, c.accept_timeout_ms));
  c.grace_ms = static_cast<uint32_t>(r.integer("grace_ms", 0, 600'000, c.grace_ms));
  if (const json* cores = r.get("cores")) c.cores = parse_cores(*cores, *c.kind);
  c.batch = static_cast<uint32_t>(r.integer("batch", 1, c.kind->max_batch, c.kind->batch_default));
  if (const json* w = r.get("workload")) c.workload = parse_workload(*w);
  parse_workload_settings(r, c);
  c.ready_file = r.text("ready_file", 4096, "");
  c.summary_file = r.text("summary_file", 4096, "");
  c.csv = r.boolean("csv", false);
  c.csv_file = r.text("csv_file", 4096, "");
  if (const json* labels = r.get("labels")) c.labels = parse_labels(*labels);
  if (const json* search = r.get("search")) parse_rate_search(*search, c);
  if (c.kind->parse) c.kind->parse(r, c);
  check_combinations(c, r);
  check_rate_search(c);
  return c;
}

json read_cell_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BadInput("cell: cannot read \"" + path + "\"");
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadInput("cell: \"" + path + "\" is not valid JSON");
  if (!j.is_object()) throw BadInput("cell: \"" + path + "\" must hold one JSON object");
  return j;
}

}  // namespace spiral
