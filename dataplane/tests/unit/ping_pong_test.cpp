// Latency mode of the socket kinds: its keys and refusals, and how both sides' counts combine
// into one exact result (every ping answered, the window's round trips, the percentiles).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cell_refusal.hpp"
#include "control/messages.hpp"
#include "metrics/run_result.hpp"
#include "metrics/verdict.hpp"
#include "output/csv_row.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"
#include "report_builders.hpp"
#include "run/outcome.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"

namespace spiral {
namespace {

using nlohmann::json;
using spiral::testing::refusal;
using spiral::testing::side;
using spiral::testing::with;

json latency_cell(const std::string& transport) {
  return {{"transport", transport}, {"role", "client"}, {"mode", "latency"}, {"payload_bytes", 64}};
}

TEST(PingPongOptions, ParsedForBothSocketKinds) {
  for (const char* t : {"tcp", "udp"}) {
    Cell c = parse_cell(with(with(latency_cell(t), "wait", "spin"), "busy_poll_us", 50));
    EXPECT_TRUE(latency_mode(c)) << t;
    EXPECT_EQ(ping_pong_options(c).wait, PingPongOptions::Wait::spin);
    EXPECT_EQ(ping_pong_options(c).busy_poll_us, 50u);
    EXPECT_EQ(c.batch, 1u) << "one message per round trip";
  }
  Cell plain = parse_cell({{"transport", "udp"}, {"role", "client"}});
  EXPECT_FALSE(latency_mode(plain));
  EXPECT_EQ(plain.batch, 64u);
}

TEST(PingPongOptions, RefusalsSayWhatToChange) {
  EXPECT_EQ(refusal(with(latency_cell("tcp"), "pairs", 2)),
            "cell: \"pairs\" must be 1 in latency mode (one ping-pong on one socket), got 2");
  EXPECT_EQ(refusal(with(latency_cell("udp"), "target_mbps", 100)),
            "cell: \"target_mbps\" must be 0 in latency mode (one message in flight: nothing to pace)");
  EXPECT_EQ(refusal(with(latency_cell("udp"), "batch", 8)),
            "cell: \"batch\" must be 1 in latency mode (one message per round trip)");
  EXPECT_EQ(refusal(with(latency_cell("udp"), "udp_gso", true)),
            "cell: \"udp_gso\" must be off in latency mode (one datagram per round trip)");
  EXPECT_EQ(refusal(with(latency_cell("tcp"), "wait", "poll")), "cell: \"wait\" must be blocking or spin, got \"poll\"");
  EXPECT_EQ(refusal(with(latency_cell("tcp"), "mode", "pingpong")),
            "cell: \"mode\" must be bandwidth or latency, got \"pingpong\"");
  EXPECT_EQ(refusal(with(with(latency_cell("tcp"), "mode", "bandwidth"), "wait", "spin")),
            "cell: \"wait\" applies to mode latency only (how a ping-pong side waits): remove it");
  EXPECT_EQ(refusal(with(latency_cell("udp"), "payload_bytes", 16)),
            "cell: \"payload_bytes\" must be in 24..65507 for udp (the datagram header takes 24), got 16");
  EXPECT_EQ(refusal(with(latency_cell("tcp"), "busy_poll_us", 2000000)),
            "cell: \"busy_poll_us\" must be an integer in 0..1000000, got 2000000");
}

// The client's queue: n pings per phase, answered as given, the window's round trips timed.
QueueCounters pinger(uint64_t warmup, uint64_t measured, uint64_t answered, uint64_t drain = 0, uint32_t bytes = 64) {
  QueueCounters q;
  q.by_phase[index(Phase::warmup)] = {warmup, warmup * bytes};
  q.by_phase[index(Phase::measure)] = {measured, measured * bytes};
  q.by_phase[index(Phase::drain)] = {drain, drain * bytes};
  q.replies[index(Phase::warmup)] = {warmup, warmup * bytes};
  q.replies[index(Phase::measure)] = {answered, answered * bytes};
  q.replies[index(Phase::drain)] = {drain, drain * bytes};
  LatencyHistogram h;
  for (uint64_t i = 0; i < answered; ++i) h.add(10000 + static_cast<int64_t>(i % 100) * 100);  // 10..19.9 us
  q.latency = h.summary(2);
  q.finished = true;
  return q;
}

// The server's queue: it echoed `echoed` messages, by its own phase (which lags the client's).
QueueCounters echoer(uint64_t echoed, bool finished = true, uint32_t bytes = 64) {
  QueueCounters q;
  q.by_phase[index(Phase::warmup)] = {echoed / 2, echoed / 2 * bytes};
  q.by_phase[index(Phase::measure)] = {echoed - echoed / 2, (echoed - echoed / 2) * bytes};
  q.replies = q.by_phase;
  q.finished = finished;
  return q;
}

Cell parsed(const std::string& transport) { return parse_cell(latency_cell(transport)); }

TEST(PingPongResult, EveryPingAnsweredIsValidWithTheClientsCounts) {
  Cell cell = parsed("tcp");
  // The client's report travels to the server over the control connection.
  SideReport sender = side_report_from_json(to_json(side({pinger(100, 1000, 1000, 1)}, 1000)));
  SideReport receiver = side({echoer(1101)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  settle(cell, r, "");
  EXPECT_EQ(r.state, RunState::valid) << r.reason;
  EXPECT_EQ(r.tx_packets, 1000u);
  EXPECT_EQ(r.rx_packets, 1000u);  // the echoes of the window's pings, not the server's own phase
  EXPECT_EQ(r.pps, 1000u);         // round trips per second
  EXPECT_EQ(r.lost, 0u);
  const LatencySummary* l = cell.kind->latency(cell, r);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->samples, 1000u);
  EXPECT_EQ(l->min_ns, 5000);   // half of 10 us
  EXPECT_EQ(l->max_ns, 9950);   // half of 19.9 us
  EXPECT_NEAR(l->p50_ns, 7450, 8);
  auto rec = result_record(cell, r);
  EXPECT_EQ(rec["ping_pong"]["pings_all"], 1101);
  EXPECT_EQ(rec["ping_pong"]["echoed_all"], 1101);
  EXPECT_EQ(rec["latency"]["samples"], 1000);
  auto summary = json::parse(summary_text(cell, r));
  EXPECT_EQ(summary["lat_min_ns"], 5000);
  EXPECT_EQ(summary["lat_max_ns"], 9950);
  EXPECT_TRUE(summary.contains("lat_p999_ns"));
  const std::string row = csv_row(cell, r);
  EXPECT_NE(row.find(",5000," + std::to_string(l->p50_ns) + "," + std::to_string(l->p99_ns) + "," +
                     std::to_string(l->p999_ns) + ",9950,"),
            std::string::npos)
      << row;
}

TEST(PingPongResult, AnUnansweredStreamPingIsInvalid) {
  Cell cell = parsed("tcp");
  SideReport sender = side({pinger(0, 1000, 999)}), receiver = side({echoer(999)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "counters inconsistent: client sent 1000 pings, server echoed 999");
  receiver = side({echoer(1000)});
  r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "1 of 1000 pings were not answered");
}

TEST(PingPongResult, StreamNotClosedIsInvalid) {
  Cell cell = parsed("tcp");
  SideReport sender = side({pinger(0, 500, 500)}), receiver = side({echoer(500, /*finished=*/false)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "server did not reach the end of the stream within grace_ms");
}

TEST(PingPongResult, LostDatagramPingsAreDropsAndTheRunStaysValid) {
  Cell cell = parsed("udp");
  SideReport sender = side({pinger(10, 1000, 990)}), receiver = side({echoer(1000)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  settle(cell, r, "");
  EXPECT_EQ(r.state, RunState::valid) << r.reason;
  EXPECT_EQ(r.lost, 10u);
  EXPECT_EQ(r.drops, 10u);
  EXPECT_EQ(r.drops_kind, "udp-ping-unanswered");
  EXPECT_EQ(r.loss_ppm, 10000);
  EXPECT_EQ(cell.kind->latency(cell, r)->samples, 990u);
}

TEST(PingPongResult, MoreEchoesThanTheServerSentIsInconsistent) {
  Cell cell = parsed("udp");
  SideReport sender = side({pinger(0, 100, 100)}), receiver = side({echoer(50)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "counters inconsistent: client got 100 echoes, server sent 50");
}

TEST(PingPongResult, NoRoundTripInTheWindowIsInvalid) {
  Cell cell = parsed("udp");
  QueueCounters q = pinger(10, 5, 5);
  q.latency = {};
  SideReport sender = side({q}), receiver = side({echoer(15)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "no round trip was timed in the measured window");
}

TEST(PingPongResult, BandwidthRunsHaveNoLatency) {
  Cell cell = parse_cell({{"transport", "tcp"}, {"role", "client"}});
  SideReport sender = side({testing::tcp_stream(1000, 1000, true)}), receiver = side({testing::tcp_stream(1000, 1000, true)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(cell.kind->latency(cell, r), nullptr);
  EXPECT_FALSE(json::parse(summary_text(cell, r)).contains("lat_p50_ns"));
  EXPECT_FALSE(result_record(cell, r).contains("latency"));
}

}  // namespace
}  // namespace spiral
