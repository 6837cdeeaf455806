// Combining the two sides of a roce run, judging it, and what the outputs say about it.
#include <gtest/gtest.h>

#include "control/messages.hpp"
#include "metrics/run_result.hpp"
#include "metrics/verdict.hpp"
#include "output/csv_row.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"
#include "report_builders.hpp"
#include "run/outcome.hpp"
#include "transports/roce/rdma_result.hpp"

namespace spiral {
namespace {

using namespace spiral::testing;

// A queue that posted (client) or completed (server) these messages per phase.
QueueCounters messages(uint64_t warmup, uint64_t measured, uint64_t drain, bool finished = true,
                       uint32_t bytes = 65536) {
  QueueCounters q;
  q.by_phase[index(Phase::warmup)] = {warmup, warmup * bytes};
  q.by_phase[index(Phase::measure)] = {measured, measured * bytes};
  q.by_phase[index(Phase::drain)] = {drain, drain * bytes};
  q.finished = finished;
  return q;
}

TEST(CombineRoce, BothSidesCountTheSameTaggedWindow) {
  Cell cell = roce_cell(RdmaOptions::Verb::send, 2);
  std::any_cast<RdmaOptions&>(cell.options).verify_payload = true;
  QueueCounters tx0 = messages(10, 1000, 3), tx1 = messages(12, 990, 2);
  QueueCounters rx0 = messages(10, 1000, 3), rx1 = messages(12, 990, 2);
  rx0.completion.verified = 1013;
  rx1.completion.verified = 1004;
  tx0.completion.retries = 5;  // the device's, on queue 0 only
  SideReport sender = side({tx0, tx1}, 2000), receiver = side({rx0, rx1}, 1990);
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.tx_packets, 1990u);
  EXPECT_EQ(r.rx_packets, 1990u);
  EXPECT_EQ(r.rx_mbps, r.tx_mbps);  // both over the sender's window: the tags say which messages count
  EXPECT_EQ(r.drops, 0u);
  EXPECT_EQ(r.drops_kind, "rdma-cqe-error");
  EXPECT_EQ(rdma_result(r).tx_retries, 5u);
  EXPECT_EQ(rdma_result(r).messages_all, 2017u);
  EXPECT_EQ(judge(cell, r).state, RunState::valid) << judge(cell, r).reason;
}

TEST(CombineRoce, AMissingMessageIsInconsistent) {
  Cell cell = roce_cell(RdmaOptions::Verb::write);
  SideReport sender = side({messages(0, 100, 0)}), receiver = side({messages(0, 99, 0)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason,
            "counters inconsistent: queue pair 0: sender posted 100 messages in the window, receiver completed 99");
}

TEST(CombineRoce, UnfinishedReceiverIsInvalid) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  SideReport sender = side({messages(0, 100, 4)}), receiver = side({messages(0, 100, 1, false)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "receiver did not complete every message within grace_ms");
}

TEST(CombineRoce, CorruptPayloadIsInvalid) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  std::any_cast<RdmaOptions&>(cell.options).verify_payload = true;
  QueueCounters rx = messages(0, 100, 0);
  rx.completion.verified = 98;
  rx.completion.corrupt = 2;
  SideReport sender = side({messages(0, 100, 0)}), receiver = side({rx});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "2 of 100 messages failed the payload check");
}

TEST(CombineRoce, UncheckedMessagesAreInvalidWhenVerifying) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  std::any_cast<RdmaOptions&>(cell.options).verify_payload = true;
  QueueCounters rx = messages(0, 100, 0);
  rx.completion.verified = 60;
  SideReport sender = side({messages(0, 100, 0)}), receiver = side({rx});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "payload check covered 60 of 100 messages");
}

TEST(CombineRoce, ReadIsCountedWhereTheDataLands) {
  Cell cell = roce_cell(RdmaOptions::Verb::read);
  QueueCounters tx = messages(5, 500, 11);
  SideReport sender = side({tx}, 1000), receiver = side({messages(0, 0, 0)});  // the responder sees nothing
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(r.rx_packets, 500u);
  EXPECT_EQ(r.rx_bytes, 500u * 65536);
  EXPECT_EQ(r.rx_bytes_all, r.tx_bytes_all);
  EXPECT_EQ(r.pairs[0].rx_packets, 500u);
  EXPECT_EQ(r.rx_mbps, 262);  // 500 x 64 KiB in 1 s
  EXPECT_EQ(judge(cell, r).state, RunState::valid) << judge(cell, r).reason;
}

TEST(CombineRoce, FailedCompletionsAreTheDrops) {
  Cell cell = roce_cell(RdmaOptions::Verb::write);
  QueueCounters tx = messages(0, 1000, 0);
  tx.completion.wc_errors[12] = 1;   // IBV_WC_RETRY_EXC_ERR
  tx.completion.wc_errors[5] = 127;  // IBV_WC_WR_FLUSH_ERR
  SideReport sender = side({tx}), receiver = side({messages(0, 1000, 0)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(r.drops, 128u);
  EXPECT_EQ(r.loss_ppm, 128000);
  auto rec = result_record(cell, r);
  EXPECT_EQ(rec["rdma"]["wc_errors"]["IBV_WC_RETRY_EXC_ERR"], 1);
  EXPECT_EQ(rec["rdma"]["wc_errors"]["IBV_WC_WR_FLUSH_ERR"], 127);
  EXPECT_EQ(rec["drops_kind"], "rdma-cqe-error");
}

TEST(CombineRoce, LatencyReachesBothSummaries) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  std::any_cast<RdmaOptions&>(cell.options).mode = RdmaOptions::Mode::latency;
  QueueCounters tx = messages(100, 5000, 0);
  tx.latency = {5000, 1200, 1500, 2900, 3100, 40000, {{1024, 1152, 2500}, {1408, 1536, 2500}}};
  // The client's report travels to the server over the control connection.
  SideReport sender = side_report_from_json(to_json(side({tx}))), receiver = side({messages(100, 5000, 0)});
  EXPECT_EQ(sender.queues[0].latency.p99_ns, 2900);
  EXPECT_EQ(sender.queues[0].latency.histogram, tx.latency.histogram);
  RunResult r = combine(cell, &sender, &receiver, -1);
  settle(cell, r, "");
  EXPECT_EQ(r.state, RunState::valid) << r.reason;
  auto summary = nlohmann::json::parse(summary_text(cell, r));
  EXPECT_EQ(summary["lat_min_ns"], 1200);
  EXPECT_EQ(summary["lat_p50_ns"], 1500);
  EXPECT_EQ(summary["lat_p99_ns"], 2900);
  EXPECT_EQ(summary["lat_p999_ns"], 3100);
  EXPECT_EQ(summary["lat_max_ns"], 40000);
  EXPECT_EQ(result_record(cell, r)["rdma"]["latency"]["histogram"][1][2], 2500);
  EXPECT_EQ(summary["drops_kind"], "rdma-cqe-error");
  EXPECT_LE(summary.dump().size(), kSummaryMaxBytes);
}

TEST(CombineRoce, BandwidthSummariesHaveNoLatencyFields) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  SideReport sender = side({messages(0, 10, 0)}), receiver = side({messages(0, 10, 0)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  auto summary = nlohmann::json::parse(summary_text(cell, r));
  EXPECT_FALSE(summary.contains("lat_p50_ns"));
  EXPECT_EQ(summary["transport"], "roce");
}

TEST(CombineRoce, LatencyWithoutSamplesIsInvalid) {
  Cell cell = roce_cell(RdmaOptions::Verb::write);
  std::any_cast<RdmaOptions&>(cell.options).mode = RdmaOptions::Mode::latency;
  SideReport sender = side({messages(0, 10, 0)}), receiver = side({messages(0, 10, 0)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "no round trip was timed in the measured window");
}

TEST(CombineRoce, CsvBackendIsDaqirisName) {
  Cell cell = roce_cell(RdmaOptions::Verb::send);
  RunResult r = failed_result(cell, "x");
  EXPECT_EQ(r.drops_kind, "rdma-cqe-error");
  EXPECT_EQ(csv_row(cell, r).substr(0, 9), "cpp,rdma,");
}

}  // namespace
}  // namespace spiral
