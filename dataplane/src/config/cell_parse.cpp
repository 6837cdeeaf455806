#include "config/cell_parse.hpp"

#include <arpa/inet.h>

#include <fstream>
#include <set>
#include <sstream>

#include "app/errors.hpp"
#include "config/raw_port.hpp"
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
  if (kind == "fft" || kind == "gemm" || kind == "gemm_fp16") {
#if !SPIRAL_HAVE_CUDA  // defined (1) by src/gpu/gpu.cmake in CUDA builds only
    fail("workload.kind", "is \"" + kind + "\", which needs a GPU: this spiral-dataplane was built without CUDA");
#endif
    return kind == "fft" ? Workload::fft : kind == "gemm" ? Workload::gemm : Workload::gemm_fp16;
  }
  fail("workload.kind", "must be none, fft, gemm or gemm_fp16, got \"" + kind + "\"");
}

// The GPU workload's settings (top-level keys, one per flag); checked whatever the workload.
void parse_workload_settings(const ObjectReader& r, Cell& c) {
  c.gemm_n = static_cast<uint32_t>(r.integer("gemm_n", 16, 16384, c.gemm_n));
  c.fft_length = static_cast<uint32_t>(r.integer("fft_length", 2, 65536, c.fft_length));
  if ((c.fft_length & (c.fft_length - 1)) != 0)
    fail("fft_length", "must be a power of two, got " + std::to_string(c.fft_length));
  c.workload_batch_bytes = static_cast<uint64_t>(r.integer("workload_batch_bytes", 0, 1ll << 30, 0));
  c.sync_interval = static_cast<uint32_t>(r.integer("sync_interval", 1, 1024, c.sync_interval));
  c.max_in_flight = static_cast<uint32_t>(r.integer("max_in_flight", 1, 64, c.max_in_flight));
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

// ---- raw transport (issue 5) ----
const char* const kRawKeys[] = {"tx_port", "rx_port", "tx_queues", "rx_queues", "memory", "ring_descriptors",
                                "pool_buffers", "no_huge"};

#ifdef SPIRAL_HAVE_DPDK
constexpr bool kBuiltWithDpdk = true;
#else
constexpr bool kBuiltWithDpdk = false;
#endif
#ifdef SPIRAL_HAVE_CUDA
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif

RawOptions parse_raw_options(const ObjectReader& r, Transport transport) {
  RawOptions o;
  o.tx_port = r.text("tx_port", 512, "");
  o.rx_port = r.text("rx_port", 512, "");
  if (transport == Transport::raw) {  // the record shows the device, not the variable
    o.tx_port = resolve_port_source("tx_port", o.tx_port);
    o.rx_port = resolve_port_source("rx_port", o.rx_port);
  }
  o.tx_queues = static_cast<uint32_t>(r.integer("tx_queues", 1, kMaxRawQueues, o.tx_queues));
  o.rx_queues = static_cast<uint32_t>(r.integer("rx_queues", 1, kMaxRawQueues, o.rx_queues));
  const std::string memory = r.text("memory", 16, "host");
  if (memory == "host") o.memory = PacketMemory::host;
  else if (memory == "host_pinned") o.memory = PacketMemory::host_pinned;
  else if (memory == "device") o.memory = PacketMemory::device;
  else fail("memory", "must be host, host_pinned or device, got \"" + memory + "\"");
  o.ring_descriptors =
      static_cast<uint32_t>(r.integer("ring_descriptors", 64, kMaxRingDescriptors, o.ring_descriptors));
  o.pool_buffers = static_cast<uint32_t>(r.integer("pool_buffers", 255, 1 << 22, o.pool_buffers));
  o.no_huge = r.boolean("no_huge", false);
  return o;
}

void check_raw(const Cell& c, const ObjectReader& r) {
  if (c.transport != Transport::raw) {
    for (const char* key : kRawKeys)
      if (r.has(key)) fail(key, "applies to transport raw only");
    return;
  }
  if (!kBuiltWithDpdk)
    throw BadInput("transport raw needs DPDK: this spiral-dataplane was built without it "
                   "(SPIRAL_WITH_DPDK=OFF, or libdpdk-dev was missing at build time)");
  if (c.role != Role::loopback)
    fail("role", "must be loopback for transport raw: one process drives the TX and the RX port");
  const RawOptions& o = c.raw;
  const PortSpec tx = parse_port("tx_port", o.tx_port);
  const PortSpec rx = parse_port("rx_port", o.rx_port);
  if (c.payload_bytes < kMinRawPayload || c.payload_bytes > kMaxRawPayload)
    fail("payload_bytes", "must be in " + std::to_string(kMinRawPayload) + ".." + std::to_string(kMaxRawPayload) +
                              " for raw (UDP payload of one frame, MTU 9000; the sequence header takes " +
                              std::to_string(kMinRawPayload) + "), got " + std::to_string(c.payload_bytes));
  if (o.memory == PacketMemory::device && (tx.is_virtual() || rx.is_virtual()))
    fail("memory", std::string("device needs a GPUDirect-capable NIC (a PCI port), but ") +
                       (tx.is_virtual() ? "tx_port " + tx.name : "rx_port " + rx.name) +
                       " is a virtual device; use host");
  if (o.memory != PacketMemory::host && !kBuiltWithCuda)
    fail("memory", std::string("is ") + to_string(o.memory) +
                       ", which needs CUDA: this spiral-dataplane was built without CUDA (only host)");
  if (c.batch > o.ring_descriptors)
    fail("batch", std::to_string(c.batch) + " is larger than the ring: ring_descriptors is " +
                      std::to_string(o.ring_descriptors));
  if (uint64_t{o.pool_buffers} < uint64_t{o.ring_descriptors} + 2ull * c.batch)
    fail("pool_buffers", std::to_string(o.pool_buffers) + " cannot keep a ring full: needs at least ring_descriptors + "
                         "2 x batch = " + std::to_string(o.ring_descriptors + 2ull * c.batch));
  if (r.has("pairs") && c.pairs != 1) fail("pairs", "must be 1 for raw: use tx_queues and rx_queues");
  if (c.workload != Workload::none)
    fail("workload.kind", std::string("is ") + to_string(c.workload) +
                              ": the raw transport has no GPU receive path yet (tcp and udp have)");
  if (c.socket_buffer_bytes) fail("socket_buffer_bytes", "applies to socket transports only");
  if (c.tcp_nodelay) fail("tcp_nodelay", "applies to tcp only");
  if (c.udp_gso) fail("udp_gso", "applies to udp only");
  if (c.udp_gro) fail("udp_gro", "applies to udp only");
}
// ---- end raw transport ----

// Rules that involve more than one key.
void check_combinations(const Cell& c, const ObjectReader& r) {
  const bool udp = c.transport == Transport::udp;
  if (c.transport == Transport::raw) {
    check_raw(c, r);
    return;
  }
  check_raw(c, r);  // refuses raw keys on the socket transports
  if (udp) {
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
                 {"transport", "role", "payload_bytes", "pairs", "target_mbps", "seconds", "warmup_seconds",
                  "server_address", "bind_address", "base_port", "control_port", "connect_timeout_ms",
                  "gemm_n", "fft_length", "workload_batch_bytes", "sync_interval", "max_in_flight",
                  "accept_timeout_ms", "grace_ms", "cores", "tcp_nodelay", "udp_gso", "udp_gro",
                  "socket_buffer_bytes", "batch", "workload", "ready_file", "summary_file", "csv", "csv_file",
                  "labels", "tx_port", "rx_port", "tx_queues", "rx_queues", "memory", "ring_descriptors",
                  "pool_buffers", "no_huge"});
  Cell c;
  if (!r.has("transport")) throw BadInput("cell: \"transport\" is required (tcp, udp or raw)");
  const std::string transport = r.text("transport", 16, "");
  if (transport == "tcp") c.transport = Transport::tcp;
  else if (transport == "udp") c.transport = Transport::udp;
  else if (transport == "raw") c.transport = Transport::raw;
  else fail("transport", "must be tcp, udp or raw, got \"" + transport + "\"");

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
      r.integer("batch", 1, c.transport == Transport::raw ? kMaxRawBatch : kMaxBatch,
                c.transport == Transport::tcp ? 1 : c.batch));
  if (const json* w = r.get("workload")) c.workload = parse_workload(*w);
  parse_workload_settings(r, c);
  c.ready_file = r.text("ready_file", 4096, "");
  c.summary_file = r.text("summary_file", 4096, "");
  c.csv = r.boolean("csv", false);
  c.csv_file = r.text("csv_file", 4096, "");
  if (const json* labels = r.get("labels")) c.labels = parse_labels(*labels);
  c.raw = parse_raw_options(r, c.transport);
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
