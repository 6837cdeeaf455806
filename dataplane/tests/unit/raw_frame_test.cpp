// Raw transport, pure parts: frames, stream accounting, the result and the wire-proof verdict.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "kinds/registry.hpp"
#include "metrics/verdict.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"
#include "transports/raw/frame.hpp"
#include "transports/raw/raw_figures.hpp"
#include "transports/raw/raw_options.hpp"
#include "transports/raw/raw_result.hpp"

namespace spiral::raw {
namespace {

FrameSpec spec(uint32_t payload, uint16_t stream = 1) {
  FrameSpec s;
  s.source = {0x02, 0, 0, 0, 0, 1};
  s.destination = {0x02, 0, 0, 0, 0, 2};
  s.payload_bytes = payload;
  s.run_id = 0xabcd1234;
  s.stream = stream;
  return s;
}

std::vector<uint8_t> built(const FrameSpec& s) {
  std::vector<uint8_t> f(frame_bytes(s.payload_bytes), 0xee);
  build_frame(f.data(), s);
  return f;
}

ParsedFrame parsed(const std::vector<uint8_t>& f, uint32_t expected, uint16_t streams = 4) {
  return parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), expected, 0xabcd1234,
                     streams);
}

TEST(RawFrame, HeadersAreEthernetIpv4Udp) {
  auto f = built(spec(1000, 3));
  ASSERT_EQ(f.size(), 1042u);
  EXPECT_EQ(f[0], 0x02);
  EXPECT_EQ(f[5], 2);   // destination MAC first
  EXPECT_EQ(f[11], 1);  // then the source
  EXPECT_EQ(f[12], 0x08);
  EXPECT_EQ(f[13], 0x00);  // IPv4
  const uint8_t* ip = f.data() + 14;
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(ip[2] << 8 | ip[3], 1028);  // total length: 20 + 8 + 1000
  EXPECT_EQ(ip[9], 17);                 // UDP
  EXPECT_EQ(ipv4_checksum(ip), 0) << "a header with a correct checksum sums to 0xffff";
  EXPECT_EQ(ip[12], 198);
  EXPECT_EQ(ip[13], 18);  // RFC 2544 benchmarking range
  const uint8_t* udp = ip + 20;
  EXPECT_EQ(udp[0] << 8 | udp[1], source_port(3));
  EXPECT_EQ(source_port(3), 49155);  // one source port per stream, for RSS
  EXPECT_EQ(udp[2] << 8 | udp[3], kDestinationPort);
  EXPECT_EQ(udp[4] << 8 | udp[5], 1008);
}

TEST(RawFrame, StampChangesOnlySequenceAndFlags) {
  auto f = built(spec(64));
  auto g = f;
  stamp(g.data(), 0x0102030405060708ull, datagram::kFlagMeasured);
  size_t differing = 0;
  for (size_t i = 0; i < f.size(); ++i) differing += f[i] != g[i];
  EXPECT_LE(differing, 10u);
  const ParsedFrame p = parsed(g, frame_bytes(64));
  EXPECT_EQ(p.kind, FrameKind::ours);
  EXPECT_EQ(p.seq, 0x0102030405060708ull);
  EXPECT_EQ(p.stream, 1);
  EXPECT_TRUE(p.measured);
}

TEST(RawFrame, ParseTellsOursForeignAndMalformed) {
  auto f = built(spec(64));
  EXPECT_EQ(parsed(f, frame_bytes(64)).kind, FrameKind::ours);
  EXPECT_FALSE(parsed(f, frame_bytes(64)).measured);
  EXPECT_EQ(parsed(f, frame_bytes(65)).kind, FrameKind::malformed) << "ours by the headers, wrong length";
  EXPECT_EQ(parsed(f, frame_bytes(64), /*streams=*/1).kind, FrameKind::foreign) << "stream 1 of 1";
  auto other_run = f;
  other_run[kHeadersBytes + 4] ^= 1;
  EXPECT_EQ(parsed(other_run, frame_bytes(64)).kind, FrameKind::foreign);
  auto ipv6 = f;
  ipv6[12] = 0x86;
  ipv6[13] = 0xdd;
  EXPECT_EQ(parsed(ipv6, frame_bytes(64)).kind, FrameKind::foreign);
  auto other_port = f;
  other_port[14 + 20 + 3] ^= 1;
  EXPECT_EQ(parsed(other_port, frame_bytes(64)).kind, FrameKind::foreign);
  std::vector<uint8_t> runt(f.begin(), f.begin() + 30);
  EXPECT_EQ(parsed(runt, frame_bytes(64)).kind, FrameKind::foreign);
  // a first segment too short to hold the sequence header
  EXPECT_EQ(parse_frame(f.data(), 50, static_cast<uint32_t>(f.size()), frame_bytes(64), 0xabcd1234, 4).kind,
            FrameKind::malformed);
}

datagram::SequenceStats seen(uint64_t min, uint64_t max, uint64_t received) {
  datagram::SequenceStats s;
  s.any = true;
  s.min_seq = min;
  s.max_seq = max;
  s.received = received;
  return s;
}

TEST(RawAccounting, StreamsMergeOverRxQueues) {
  // stream 0 split over two RX queues (RSS), stream 1 on queue 1 only
  std::vector<std::vector<datagram::SequenceStats>> rx = {{seen(10, 19, 6), {}}, {seen(20, 29, 10), seen(5, 9, 5)}};
  auto s0 = merge_stream(rx, 0);
  EXPECT_TRUE(s0.any);
  EXPECT_EQ(s0.min_seq, 10u);
  EXPECT_EQ(s0.max_seq, 29u);
  EXPECT_EQ(s0.received, 16u);
  EXPECT_EQ(s0.gaps(), 4u);
  auto s1 = merge_stream(rx, 1);
  EXPECT_EQ(s1.min_seq, 5u);
  EXPECT_EQ(s1.received, 5u);
  EXPECT_FALSE(merge_stream(rx, 2).any);
}

// DAQIRI's drops are the port's imissed + ierrors + rx_nombuf; the sequence loss they do not
// explain stays apart in gap.
TEST(RawAccounting, DropsAreThePortCountersTheGapApart) {
  RawFigures f;
  uint64_t drops = 0;
  std::string kind;
  account_drops(f, 0, drops, kind);
  EXPECT_EQ(drops, 0u);
  EXPECT_EQ(kind, "dpdk-imissed+ierrors+nombuf");
  f.imissed = 70;
  account_drops(f, 100, drops, kind);
  EXPECT_EQ(f.gap, 30u) << "30 of the 100 lost are not the port's misses";
  EXPECT_EQ(drops, 70u) << "DAQIRI's column holds the port counters only";
  f.rx_nombuf = 50;  // the port counted warm-up frames too: more than the sequence numbers lost
  f.ierrors = 1;
  account_drops(f, 100, drops, kind);
  EXPECT_EQ(f.gap, 0u);
  EXPECT_EQ(drops, 121u);
  EXPECT_EQ(kind, "dpdk-imissed+ierrors+nombuf");
}

QueueCounters sender(uint64_t first, uint64_t count, uint32_t frame) {
  QueueCounters c;
  c.sent_measured = count > 0;
  c.first_seq = first;
  c.last_seq = first + count - 1;
  c.by_phase[index(Phase::measure)] = {count, count * frame};
  c.by_phase[index(Phase::warmup)] = {first, first * frame};
  return c;
}

QueueCounters receiver(uint64_t count, uint32_t frame) {
  QueueCounters c;
  c.by_phase[index(Phase::measure)] = {count, count * frame};
  return c;
}

Cell raw_cell(uint32_t tx_queues, uint32_t rx_queues) {
  Cell c;
  c.kind = &kind_named("raw");
  c.role = Role::loopback;
  c.payload_bytes = 64;
  RawOptions options;
  options.tx_queues = tx_queues;
  options.rx_queues = rx_queues;
  c.options = options;
  c.summary_file.clear();
  return c;
}

TEST(RawResult, EverySentFrameIsReceivedOrLost) {
  const Cell cell = raw_cell(2, 2);
  const uint32_t frame = frame_bytes(64);
  RawMeasurement m;
  m.window_ms = 1000;
  m.tx = {sender(100, 1000, frame), sender(50, 500, frame)};
  // stream 0: 990 of 100..1099 on RX queue 0; stream 1: all 500 on RX queue 1
  m.rx = {receiver(990, frame), receiver(500, frame)};
  m.rx_streams = {{seen(100, 1099, 990), {}}, {{}, seen(50, 549, 500)}};
  m.ports.imissed = 4;
  RunResult r = combine_raw(cell, m);
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_EQ(r.tx_packets, 1500u);
  EXPECT_EQ(r.rx_packets, 1490u);
  EXPECT_EQ(r.lost, 10u);
  EXPECT_EQ(r.tx_packets, r.rx_packets + r.lost);
  EXPECT_EQ(r.drops, 4u);
  EXPECT_EQ(r.drops_kind, "dpdk-imissed+ierrors+nombuf");
  EXPECT_EQ(raw_figures(r).gap, 6u);
  EXPECT_EQ(r.pps, 1490u);
  EXPECT_EQ(r.tx_bytes, 1500u * frame);
  EXPECT_EQ(raw_figures(r).rx_queue_packets, (std::vector<uint64_t>{990, 500}));
  EXPECT_EQ(raw_figures(r).phy_note, "no PHY counters");
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0].lost, 10u);
  EXPECT_EQ(r.pairs[1].rx_packets, 500u);
  EXPECT_EQ(judge(cell, r).state, RunState::valid);
}

TEST(RawResult, ArrivalsOutsideTheSendersRangeAreInconsistent) {
  const Cell cell = raw_cell(1, 1);
  RawMeasurement m;
  m.window_ms = 1000;
  m.tx = {sender(0, 100, 106)};
  m.rx = {receiver(101, 106)};
  m.rx_streams = {{seen(0, 100, 101)}};
  RunResult r = combine_raw(cell, m);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(judge(cell, r).state, RunState::invalid);
  EXPECT_NE(judge(cell, r).reason.find("counters inconsistent: stream 0"), std::string::npos);
}

TEST(RawResult, PhyCountersProveTheWire) {
  const Cell cell = raw_cell(1, 1);
  RawMeasurement m;
  m.window_ms = 1000;
  m.tx = {sender(0, 1000, 106)};
  m.rx = {receiver(1000, 106)};
  m.rx_streams = {{seen(0, 999, 1000)}};
  // The ports' PHY counters go through the one wire proof of every transport (metrics/wire_proof).
  auto port = [](uint64_t tx_bytes, uint64_t rx_bytes) {
    return phy_sample(std::map<std::string, uint64_t>{{"tx_bytes_phy", tx_bytes}, {"rx_bytes_phy", rx_bytes},
                                                      {"tx_packets_phy", tx_bytes / 110}, {"rx_packets_phy", rx_bytes / 110}},
                      "");
  };
  m.ports.tx_wire = wire_delta("", "0000:01:00.0", port(0, 0), port(1003 * 110, 0));  // warm-up frames too, FCS
  m.ports.rx_wire = wire_delta("", "0000:01:00.1", port(0, 0), port(0, 1002 * 110));
  RunResult r = combine_raw(cell, m);
  EXPECT_TRUE(raw_figures(r).phy_checked);
  EXPECT_EQ(r.wire, "crossed");
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_EQ(r.links[0].tx_netdev, "0000:01:00.0");
  EXPECT_EQ(judge(cell, r).state, RunState::valid);
  // VFs of one port: the NIC looped the frames internally, the PHY never moved.
  m.ports.tx_wire = wire_delta("", "0000:01:00.0", port(0, 0), port(0, 0));
  m.ports.rx_wire = wire_delta("", "0000:01:00.1", port(0, 0), port(0, 0));
  r = combine_raw(cell, m);
  const Verdict v = judge(cell, r);
  EXPECT_EQ(r.wire, "did-not-cross");
  EXPECT_EQ(v.state, RunState::invalid);
  EXPECT_NE(v.reason.find("never crossed the wire: 0000:01:00.0 tx_bytes_phy +0"), std::string::npos) << v.reason;
}

TEST(RawResult, PacedBelowTargetIsInvalid) {
  Cell cell = raw_cell(1, 1);
  cell.target_mbps = 1000;
  RawMeasurement m;
  m.window_ms = 1000;
  m.tx = {sender(0, 1000, 1000)};  // 8 Mb/s
  m.rx = {receiver(1000, 1000)};
  m.rx_streams = {{seen(0, 999, 1000)}};
  EXPECT_EQ(judge(cell, combine_raw(cell, m)).state, RunState::invalid);
}

TEST(RawOutputs, SummaryAndRecordCarryTheRawFigures) {
  Cell cell = raw_cell(2, 1);
  RawMeasurement m;
  m.window_ms = 1000;
  m.tx = {sender(0, 10, 106), sender(0, 10, 106)};
  m.rx = {receiver(20, 106)};
  m.rx_streams = {{seen(0, 9, 10), seen(0, 9, 10)}};
  RunResult r = combine_raw(cell, m);
  r.reason = std::string(10000, 'x');
  const std::string summary = summary_text(cell, r);
  EXPECT_LE(summary.size(), kSummaryMaxBytes);
  const auto j = nlohmann::json::parse(summary);
  EXPECT_EQ(j["transport"], "raw");
  EXPECT_EQ(j["tx_queues"], 2);
  EXPECT_EQ(j["phy_checked"], false);
  EXPECT_EQ(j["drops_kind"], "dpdk-imissed+ierrors+nombuf");
  const auto record = result_record(cell, r);
  EXPECT_EQ(record["raw"]["phy_note"], "no PHY counters");
  EXPECT_EQ(record["cell"]["tx_queues"], 2);
}

}  // namespace
}  // namespace spiral::raw
