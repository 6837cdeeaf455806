// udp: one UDP socket per pair carrying sequenced datagrams (src/datagram/), paced or not.
// Drops are DAQIRI's: the drops column of /proc/net/udp for the receiving sockets. The sequence
// gaps the receiver saw in the sender's numbered window are kept as lost and give loss_ppm.
#include "transports/udp/udp_kind.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "config/object_reader.hpp"
#include "datagram/header.hpp"
#include "metrics/run_result.hpp"
#include "metrics/verdict.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_engines.hpp"
#include "transports/ping_pong/ping_pong_result.hpp"
#include "transports/udp/udp_receiver.hpp"
#include "transports/udp/udp_sender.hpp"

namespace spiral::udp {

namespace {

constexpr uint32_t kMaxUdpPayload = 65507;  // 65535 - 20 (IPv4) - 8 (UDP)
constexpr uint32_t kIpUdpHeaderBytes = 28;

void check(const Cell& c, const ObjectReader&) {
  if (c.payload_bytes < kHeaderBytes || c.payload_bytes > kMaxUdpPayload)
    refuse_key("payload_bytes", "must be in " + std::to_string(kHeaderBytes) + ".." + std::to_string(kMaxUdpPayload) +
                                    " for udp (the datagram header takes " + std::to_string(kHeaderBytes) +
                                    "), got " + std::to_string(c.payload_bytes));
}

using ping_pong::Carrier;

std::unique_ptr<Engine> make_engine(const Cell& c, Direction d, uint32_t run_id) {
  if (latency_mode(c)) return ping_pong::make_engine(c, d, run_id, Carrier::datagram);
  if (d == Direction::send) return std::make_unique<UdpSender>(c, run_id);
  return std::make_unique<UdpReceiver>(c, run_id);
}

// Datagrams above the route's MTU fragment and collapse under load: refuse them up front. The
// message names the operator's fields too, since a pod network's MTU (1500) is often below the
// topology.mtu the bench was admitted with (9000 by default).
void require_payload_fits(const Cell& c, const sockaddr_in& to, const std::string& netdev) {
  const int mtu = route_mtu(to);
  if (c.payload_bytes + kIpUdpHeaderBytes <= static_cast<uint32_t>(mtu)) return;
  char address[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &to.sin_addr, address, sizeof address);
  throw BadInput("payload " + std::to_string(c.payload_bytes) + " B + " + std::to_string(kIpUdpHeaderBytes) +
                 " B of IPv4 and UDP headers exceeds the path MTU " + std::to_string(mtu) +
                 (netdev.empty() ? "" : " of " + netdev) + " (the route to " + address +
                 "): lower payload_bytes (matrix.payloadBytes) to at most " +
                 std::to_string(mtu - static_cast<int>(kIpUdpHeaderBytes)) +
                 ", or raise the link's MTU; topology.mtu should say the link's MTU, so that admission checks payloads against it");
}

// Every measured datagram the sender sent on each pair arrived.
bool caught_up(const Cell& c, const std::vector<QueueCounters>& rx, const SideReport& sender) {
  if (latency_mode(c)) return ping_pong::caught_up(Carrier::datagram, rx);
  for (size_t i = 0; i < rx.size() && i < sender.queues.size(); ++i)
    if (rx[i].measured().packets < sender.queues[i].measured().packets) return false;
  return true;
}

void account(const Cell& c, const SideReport* sender, const SideReport* receiver, RunResult& r) {
  if (latency_mode(c)) return ping_pong::account(Carrier::datagram, sender, receiver, r);
  if (sender && receiver) account_sequence_loss(*sender, *receiver, r);
  r.drops = r.kernel_drops;
}

std::optional<std::string> verdict(const Cell& c, const RunResult& r) {
  if (latency_mode(c)) return ping_pong::verdict(Carrier::datagram, r);
  return datagram_verdict(c, r);
}

void record_fields(const Cell& c, const RunResult& r, nlohmann::ordered_json& j) {
  if (latency_mode(c)) ping_pong::record_fields(c, r, j);
}

const LatencySummary* latency(const Cell& c, const RunResult& r) {
  return latency_mode(c) ? &ping_pong::ping_pong_result(r).latency : nullptr;
}

BenchKind describe() {
  BenchKind k;
  k.name = "udp";
  k.backend = "socket-udp";
  k.drops_kind = "udp-proc-net-udp-drops";
  k.run_mode = RunMode::two_sided;
  k.rate_search = true;  // paced, and sequence numbers give each run exact loss
  k.sequenced = true;
  k.multi_link = true;
  k.repeats_in_one_process = true;
  k.flags = {{"--udp-gso", "udp_gso", KindFlag::Type::toggle, "send with UDP GSO (UDP_SEGMENT)"},
             {"--udp-gro", "udp_gro", KindFlag::Type::toggle, "receive with UDP GRO"}};
  k.flags.insert(k.flags.end(), kSocketFlags.begin(), kSocketFlags.end());
  k.keys = kSocketKeys;
  k.keys.insert({"udp_gso", "udp_gro"});
  k.neutral_keys = {{"udp_gso", NeutralKey::Neutral::off, "applies to udp only"},
                    {"udp_gro", NeutralKey::Neutral::off, "applies to udp only"},
                    kSocketBufferNeutral};
  k.parse = parse_socket_options;
  k.cell_json = socket_cell_json;
  k.batch_default = 64;
  k.max_batch = kMaxBatch;
  k.check = check;
  k.make_engine = make_engine;
  k.client_preflight = require_payload_fits;
  k.caught_up = caught_up;
  k.sender_timed = true;  // datagrams carry the sender's phase
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

}  // namespace spiral::udp
