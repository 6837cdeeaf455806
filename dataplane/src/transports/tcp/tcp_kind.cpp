// tcp: one TCP stream per pair, client sends, server receives (tcp_sender.cpp, tcp_receiver.cpp).
// Drops are DAQIRI's: TCPLostRetransmit + RetransSegs + InErrs of the sender's network namespace (/proc/net/snmp and netstat,
// what `nstat` reads) over the window; the sockets' own retransmits (TCP_INFO) give loss_ppm.
#include "transports/tcp/tcp_kind.hpp"

#include "config/object_reader.hpp"
#include "metrics/run_result.hpp"
#include "transports/ping_pong/ping_pong_engines.hpp"
#include "transports/ping_pong/ping_pong_result.hpp"
#include "transports/tcp/tcp_receiver.hpp"
#include "transports/tcp/tcp_sender.hpp"

namespace spiral::tcp {

namespace {

void check(const Cell& c, const ObjectReader& r) {
  if (c.payload_bytes > kMaxPayloadBytes)
    refuse_key("payload_bytes", "must be at most " + std::to_string(kMaxPayloadBytes) + " for tcp");
  if (r.has("batch") && c.batch != 1) refuse_key("batch", "must be 1 for tcp (one send() per message)");
}

using ping_pong::Carrier;

std::unique_ptr<Engine> make_engine(const Cell& c, Direction d, uint32_t run_id) {
  if (latency_mode(c)) return ping_pong::make_engine(c, d, run_id, Carrier::stream);
  if (d == Direction::send) return std::make_unique<TcpSender>(c);
  return std::make_unique<TcpReceiver>(c);
}

// Every stream reached its end (the sender closed it).
bool caught_up(const Cell& c, const std::vector<QueueCounters>& rx, const SideReport&) {
  if (latency_mode(c)) return ping_pong::caught_up(Carrier::stream, rx);
  for (const auto& q : rx)
    if (!q.finished) return false;
  return true;
}

void account(const Cell& c, const SideReport* sender, const SideReport* receiver, RunResult& r) {
  r.drops = r.kernel_drops;
  if (latency_mode(c)) return ping_pong::account(Carrier::stream, sender, receiver, r);
  r.loss_ppm = r.segs_out ? static_cast<int64_t>(r.retrans * 1'000'000 / r.segs_out) : 0;
}

std::optional<std::string> verdict(const Cell& c, const RunResult& r) {
  if (latency_mode(c)) return ping_pong::verdict(Carrier::stream, r);
  if (!r.rx_finished) return "receiver did not reach the end of every stream within grace_ms";
  if (r.tx_bytes_all != r.rx_bytes_all)
    return "counters inconsistent: sender wrote " + std::to_string(r.tx_bytes_all) + " bytes, receiver read " +
           std::to_string(r.rx_bytes_all);
  return std::nullopt;
}

void record_fields(const Cell& c, const RunResult& r, nlohmann::ordered_json& j) {
  if (latency_mode(c)) ping_pong::record_fields(c, r, j);
}

const LatencySummary* latency(const Cell& c, const RunResult& r) {
  return latency_mode(c) ? &ping_pong::ping_pong_result(r).latency : nullptr;
}

BenchKind describe() {
  BenchKind k;
  k.name = "tcp";
  k.backend = "socket-tcp";
  k.drops_kind = "tcp-nstat-retrans+inerrs";
  k.socket_retrans = true;
  k.multi_link = true;
  k.repeats_in_one_process = true;
  k.run_mode = RunMode::two_sided;
  k.keys = kSocketKeys;
  k.keys.insert("tcp_nodelay");
  k.flags = {{"--tcp-nodelay", "tcp_nodelay", KindFlag::Type::toggle, "set TCP_NODELAY"}};
  k.flags.insert(k.flags.end(), kSocketFlags.begin(), kSocketFlags.end());
  k.neutral_keys = {{"tcp_nodelay", NeutralKey::Neutral::off, "applies to tcp only"}, kSocketBufferNeutral};
  k.batch_default = 1;
  k.max_batch = kMaxBatch;
  k.parse = parse_socket_options;
  k.cell_json = socket_cell_json;
  k.check = check;
  k.make_engine = make_engine;
  k.caught_up = caught_up;
  k.account = account;
  k.verdict = verdict;
  k.record_fields = record_fields;
  k.latency = latency;
  return k;
}

}  // namespace

const BenchKind& kind() {
  static const BenchKind k = describe();
  return k;
}

}  // namespace spiral::tcp
