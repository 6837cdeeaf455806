#include "config/cell_parse.hpp"

#include <arpa/inet.h>

#include <fstream>
#include <set>
#include <sstream>

#include "app/errors.hpp"
#include "transports/roce/roce_build.hpp"
#include "transports/udp/datagram.hpp"

namespace spiral {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw BadInput("cell: \"" + path + "\" " + what);
}

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Reads one JSON object's keys, remembering which were known, so that any other key is refused.
class ObjectReader {
 public:
  ObjectReader(const json& obj, std::string path, std::set<std::string> known)
      : obj_(obj), path_(std::move(path)), known_(std::move(known)) {
    if (!obj_.is_object()) {
      if (path_.empty()) throw BadInput("cell: must be a JSON object, got " + shown(obj_));
      fail(path_, "must be an object, got " + shown(obj_));
    }
    for (const auto& item : obj_.items()) {
      if (!known_.count(item.key()))
        throw BadInput("cell: unknown key \"" + key_path(item.key()) + "\"");
    }
  }
  const json* get(const std::string& key) const {
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  int64_t integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    return checked_integer(*v, key_path(key), lo, hi);
  }
  uint64_t millis_from_seconds(const std::string& key, bool allow_zero, uint64_t fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_number()) fail(key_path(key), "must be a number of seconds, got " + shown(*v));
    double s = v->get<double>();
    if (!(s >= 0) || s > 86400 || (!allow_zero && s <= 0))
      fail(key_path(key), std::string("must be ") + (allow_zero ? "in 0..86400" : "in (0, 86400]") +
                              " seconds, got " + shown(*v));
    return static_cast<uint64_t>(s * 1000.0 + 0.5);
  }
  bool boolean(const std::string& key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key_path(key), "must be true or false, got " + shown(*v));
    return v->get<bool>();
  }
  std::string text(const std::string& key, size_t max_len, std::string fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key_path(key), "must be a string, got " + shown(*v));
    auto s = v->get<std::string>();
    if (s.size() > max_len) fail(key_path(key), "is longer than " + std::to_string(max_len) + " characters");
    return s;
  }
  bool has(const std::string& key) const { return get(key) != nullptr; }

  static int64_t checked_integer(const json& v, const std::string& path, int64_t lo, int64_t hi) {
    std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (!v.is_number_integer()) fail(path, "must be " + range + ", got " + shown(v));
    // json keeps non-negative integers unsigned: compare in the matching type
    bool in_range = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= static_cast<uint64_t>(hi) && (lo <= 0 || v.get<uint64_t>() >= static_cast<uint64_t>(lo))
                        : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
    if (!in_range) fail(path, "must be " + range + ", got " + shown(v));
    return v.get<int64_t>();
  }

 private:
  const json& obj_;
  std::string path_;
  std::set<std::string> known_;
};

void require_ipv4(const std::string& path, const std::string& value) {
  in_addr a{};
  if (inet_pton(AF_INET, value.c_str(), &a) != 1) fail(path, "must be an IPv4 address, got \"" + value + "\"");
}

std::vector<int> core_list(const ObjectReader& r, const std::string& key) {
  const json* v = r.get(key);
  if (!v) return {};
  if (!v->is_array() || v->size() > 1024) fail(r.key_path(key), "must be a list of core numbers, got " + shown(*v));
  std::vector<int> cores;
  for (size_t i = 0; i < v->size(); ++i)
    cores.push_back(static_cast<int>(
        ObjectReader::checked_integer((*v)[i], r.key_path(key) + "[" + std::to_string(i) + "]", 0, 4095)));
  return cores;
}

CoreMap parse_cores(const json& j) {
  ObjectReader r(j, "cores", {"master", "tx", "rx", "tx_workers", "rx_workers"});
  CoreMap c;
  c.master = static_cast<int>(r.integer("master", -1, 4095, -1));
  c.tx = core_list(r, "tx");
  c.rx = core_list(r, "rx");
  c.tx_workers = core_list(r, "tx_workers");
  c.rx_workers = core_list(r, "rx_workers");
  return c;
}

Workload parse_workload(const json& j) {
  ObjectReader r(j, "workload", {"kind"});
  std::string kind = r.text("kind", 64, "none");
  if (kind == "none") return Workload::none;
  if (kind == "fft" || kind == "gemm" || kind == "gemm_fp16")
    fail("workload.kind", "is \"" + kind + "\", which needs a GPU: this spiral-dataplane was built without CUDA");
  fail("workload.kind", "must be none, fft, gemm or gemm_fp16, got \"" + kind + "\"");
}

std::map<std::string, std::string> parse_labels(const json& j) {
  if (!j.is_object()) fail("labels", "must be an object of strings, got " + shown(j));
  if (j.size() > 32) fail("labels", "has more than 32 entries");
  std::map<std::string, std::string> labels;
  for (const auto& item : j.items()) {
    const std::string path = "labels." + item.key();
    if (item.key().empty() || item.key().size() > 63) fail(path, "key must be 1..63 characters");
    if (!item.value().is_string()) fail(path, "must be a string, got " + shown(item.value()));
    auto value = item.value().get<std::string>();
    if (value.size() > 253) fail(path, "is longer than 253 characters");
    labels[item.key()] = std::move(value);
  }
  return labels;
}

// --- transport roce (issue 7): its keys mirror its flags (--verb -> verb, ...) ---------------
const std::set<std::string> kRdmaKeys = {"verb",   "mode",        "queue_pairs", "tx_depth",      "rx_depth",
                                         "memory", "rdma_device", "netdev",      "verify_payload"};

std::set<std::string> with_rdma_keys(std::set<std::string> keys) {
  keys.insert(kRdmaKeys.begin(), kRdmaKeys.end());
  return keys;
}

template <typename Enum>
Enum one_of(const ObjectReader& r, const std::string& key, Enum fallback,
            std::initializer_list<std::pair<const char*, Enum>> choices) {
  if (!r.has(key)) return fallback;
  const std::string value = r.text(key, 32, "");
  std::string names;
  size_t i = 0;
  for (const auto& [name, e] : choices) {
    if (value == name) return e;
    if (i > 0) names += i + 1 == choices.size() ? " or " : ", ";
    names += name;
    ++i;
  }
  fail(key, "must be " + names + ", got \"" + value + "\"");
}

RdmaOptions parse_rdma(const ObjectReader& r, Cell& c) {
  using O = RdmaOptions;
  O o;
  o.verb = one_of(r, "verb", O::Verb::send, {{"send", O::Verb::send}, {"write", O::Verb::write}, {"read", O::Verb::read}});
  o.mode = one_of(r, "mode", O::Mode::bandwidth, {{"bandwidth", O::Mode::bandwidth}, {"latency", O::Mode::latency}});
  o.memory = one_of(r, "memory", O::Memory::host,
                    {{"host", O::Memory::host}, {"host_pinned", O::Memory::host_pinned}, {"device", O::Memory::device}});
  if (o.memory == O::Memory::device)
    fail("memory", "is device, which needs GPU memory registered for GPUDirect RDMA (dma-buf or nvidia-peermem): "
                   "this spiral-dataplane was built without CUDA; use host or host_pinned");
  o.tx_depth = static_cast<uint32_t>(r.integer("tx_depth", 0, kMaxRdmaDepth, 0));
  o.rx_depth = static_cast<uint32_t>(r.integer("rx_depth", 0, kMaxRdmaDepth, 0));
  o.device = r.text("rdma_device", 63, "");
  o.netdev = r.text("netdev", 15, "");  // IFNAMSIZ - 1
  o.verify_payload = r.boolean("verify_payload", false);
  if (r.has("queue_pairs")) {
    const auto qps = static_cast<uint32_t>(r.integer("queue_pairs", 1, kMaxPairs, 1));
    if (r.has("pairs") && qps != c.pairs)
      fail("queue_pairs", "is " + std::to_string(qps) + " but \"pairs\" is " + std::to_string(c.pairs) +
                              ": for roce give queue_pairs only");
    c.pairs = qps;
  }
  if (o.mode == O::Mode::latency && c.pairs != 1)
    fail("queue_pairs", "must be 1 in latency mode (ping-pong on one queue pair), got " + std::to_string(c.pairs));
  if (c.target_mbps != 0) fail("target_mbps", "must be 0 for roce (unpaced: tx_depth bounds what is in flight)");
  if (c.batch != 1) fail("batch", "must be 1 for roce (tx_depth bounds what is in flight)");
  if (c.tcp_nodelay) fail("tcp_nodelay", "applies to tcp only");
  if (c.socket_buffer_bytes != 0) fail("socket_buffer_bytes", "applies to tcp and udp only");
#if !SPIRAL_HAVE_RDMA
  fail("transport", "is roce, but this spiral-dataplane was built without rdma-core (libibverbs): install "
                    "libibverbs-dev and rebuild with SPIRAL_WITH_RDMA=AUTO or ON");
#endif
  return o;
}
// --- end of transport roce --------------------------------------------------------------------

// Rules that involve more than one key.
void check_combinations(const Cell& c, const ObjectReader& r) {
  const bool udp = c.transport == Transport::udp;
  if (c.transport == Transport::roce) {
    if (c.udp_gso) fail("udp_gso", "applies to udp only");
    if (c.udp_gro) fail("udp_gro", "applies to udp only");
  } else if (udp) {
    if (c.payload_bytes < udp::kHeaderBytes || c.payload_bytes > kMaxUdpPayload)
      fail("payload_bytes", "must be in " + std::to_string(udp::kHeaderBytes) + ".." +
                                std::to_string(kMaxUdpPayload) + " for udp (the datagram header takes " +
                                std::to_string(udp::kHeaderBytes) + "), got " + std::to_string(c.payload_bytes));
    if (c.tcp_nodelay) fail("tcp_nodelay", "applies to tcp only");
  } else {
    if (c.payload_bytes > kMaxTcpMessage)
      fail("payload_bytes", "must be at most " + std::to_string(kMaxTcpMessage) + " for tcp");
    if (c.target_mbps != 0) fail("target_mbps", "pacing applies to udp only; use 0 for tcp");
    if (c.udp_gso) fail("udp_gso", "applies to udp only");
    if (c.udp_gro) fail("udp_gro", "applies to udp only");
    if (r.has("batch") && c.batch != 1) fail("batch", "must be 1 for tcp (one send() per message)");
  }
  if (!c.cores.tx_workers.empty())
    fail("cores.tx_workers", "must be empty for socket transports: each pair's thread does its own work");
  if (!c.cores.rx_workers.empty())
    fail("cores.rx_workers", "must be empty for socket transports: each pair's thread does its own work");
  if (uint32_t{c.base_port} + c.pairs - 1 > 65535)
    fail("base_port", "leaves no room for " + std::to_string(c.pairs) + " pairs below port 65535");
  if (c.control_port >= c.base_port && c.control_port < uint32_t{c.base_port} + c.pairs)
    fail("control_port", "must not be one of the data ports " + std::to_string(c.base_port) + ".." +
                             std::to_string(c.base_port + c.pairs - 1));
}

}  // namespace

Cell parse_cell(const json& j) {
  ObjectReader r(j, "",
                 with_rdma_keys({"transport", "role", "payload_bytes", "pairs", "target_mbps", "seconds", "warmup_seconds",
                  "server_address", "bind_address", "base_port", "control_port", "connect_timeout_ms",
                  "accept_timeout_ms", "grace_ms", "cores", "tcp_nodelay", "udp_gso", "udp_gro",
                  "socket_buffer_bytes", "batch", "workload", "ready_file", "summary_file", "csv", "csv_file",
                  "labels"}));
  Cell c;
  if (!r.has("transport")) throw BadInput("cell: \"transport\" is required (tcp, udp or roce)");
  const std::string transport = r.text("transport", 16, "");
  if (transport == "tcp") c.transport = Transport::tcp;
  else if (transport == "udp") c.transport = Transport::udp;
  else if (transport == "roce") c.transport = Transport::roce;
  else fail("transport", "must be tcp, udp or roce, got \"" + transport + "\"");

  if (!r.has("role")) throw BadInput("cell: \"role\" is required (server, client or loopback)");
  const std::string role = r.text("role", 16, "");
  if (role == "server") c.role = Role::server;
  else if (role == "client") c.role = Role::client;
  else if (role == "loopback") c.role = Role::loopback;
  else fail("role", "must be server, client or loopback, got \"" + role + "\"");

  c.payload_bytes = static_cast<uint32_t>(r.integer("payload_bytes", 1, kMaxTcpMessage, c.payload_bytes));
  c.pairs = static_cast<uint32_t>(r.integer("pairs", 1, kMaxPairs, c.pairs));
  c.target_mbps = static_cast<uint64_t>(r.integer("target_mbps", 0, 10'000'000, 0));
  c.duration_ms = r.millis_from_seconds("seconds", false, c.duration_ms);
  c.warmup_ms = r.millis_from_seconds("warmup_seconds", true, c.warmup_ms);
  c.server_address = r.text("server_address", 253, c.server_address);
  if (c.server_address.empty()) fail("server_address", "must not be empty");
  c.bind_address = r.text("bind_address", 15, c.bind_address);
  require_ipv4("bind_address", c.bind_address);
  c.base_port = static_cast<uint16_t>(r.integer("base_port", 1, 65535, c.base_port));
  if (r.has("control_port")) {
    c.control_port = static_cast<uint16_t>(r.integer("control_port", 1, 65535, 0));
  } else {
    if (c.base_port < 2) fail("base_port", "must be at least 2 unless control_port is set (it defaults to base_port - 1)");
    c.control_port = static_cast<uint16_t>(c.base_port - 1);
  }
  c.connect_timeout_ms = static_cast<uint32_t>(r.integer("connect_timeout_ms", 1, 3'600'000, c.connect_timeout_ms));
  c.accept_timeout_ms = static_cast<uint32_t>(r.integer("accept_timeout_ms", 1, 86'400'000, c.accept_timeout_ms));
  c.grace_ms = static_cast<uint32_t>(r.integer("grace_ms", 0, 600'000, c.grace_ms));
  if (const json* cores = r.get("cores")) c.cores = parse_cores(*cores);
  c.tcp_nodelay = r.boolean("tcp_nodelay", false);
  c.udp_gso = r.boolean("udp_gso", false);
  c.udp_gro = r.boolean("udp_gro", false);
  c.socket_buffer_bytes = static_cast<uint64_t>(r.integer("socket_buffer_bytes", 0, 1ll << 30, 0));
  c.batch = static_cast<uint32_t>(
      r.integer("batch", 1, kMaxBatch, c.transport == Transport::udp ? c.batch : 1));
  if (const json* w = r.get("workload")) c.workload = parse_workload(*w);
  c.ready_file = r.text("ready_file", 4096, "");
  c.summary_file = r.text("summary_file", 4096, "");
  c.csv = r.boolean("csv", false);
  c.csv_file = r.text("csv_file", 4096, "");
  if (const json* labels = r.get("labels")) c.labels = parse_labels(*labels);
  if (c.transport == Transport::roce) {
    c.rdma = parse_rdma(r, c);
  } else {
    for (const auto& key : kRdmaKeys)
      if (r.has(key)) fail(key, "applies to roce only");
  }
  check_combinations(c, r);
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
