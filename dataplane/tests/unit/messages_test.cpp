#include "control/messages.hpp"

#include <gtest/gtest.h>

#include "sys/errors.hpp"
#include "report_builders.hpp"

namespace spiral {
namespace {

using namespace spiral::testing;

TEST(Messages, SideReportSurvivesTheWire) {
  QueueCounters q = udp_sent(7, 99);
  q.duplicated = 3;
  q.reordered = 4;
  q.kernel_drops = 5;
  q.retrans = 6;
  q.finished = true;
  SideReport r = side({q, udp_received(1, 2, 2)}, 1234);
  r.cores = {{3, "tx", 91234}, {0, "master", -1}};
  r.failure = "queue 1: recvmmsg: boom";
  auto wire = nlohmann::json::parse(end_message(r).dump());
  SideReport back = side_report_from_json(wire.at("sender"));
  EXPECT_EQ(back.window_ms, 1234);
  ASSERT_EQ(back.queues.size(), 2u);
  EXPECT_EQ(back.queues[0].first_seq, 7u);
  EXPECT_EQ(back.queues[0].last_seq, 99u);
  EXPECT_EQ(back.queues[0].measured().packets, 93u);
  EXPECT_EQ(back.queues[0].by_phase[index(Phase::warmup)].bytes, 7000u);
  EXPECT_EQ(back.queues[0].duplicated, 3u);
  EXPECT_EQ(back.queues[0].kernel_drops, 5u);
  EXPECT_EQ(back.queues[0].retrans, 6u);
  EXPECT_TRUE(back.queues[0].finished);
  EXPECT_EQ(back.cores[0].busy_mpct, 91234);
  EXPECT_EQ(back.cores[1].role, "master");
  EXPECT_EQ(back.failure, r.failure);
}

TEST(Messages, MalformedReportIsARunFailure) {
  EXPECT_THROW(side_report_from_json(nlohmann::json{{"window_ms", "soon"}}), RunFailure);
}

TEST(Messages, HelloMustMatchTheServersCell) {
  Cell server = udp_cell(4);
  EXPECT_EQ(hello_mismatch(hello_message(server), server), "");
  Cell client = server;
  client.pairs = 2;
  EXPECT_EQ(hello_mismatch(hello_message(client), server), "pairs is 2 on the client, 4 on the server");
  client = server;
  client.kind = &kind_named("tcp");
  EXPECT_EQ(hello_mismatch(hello_message(client), server), "transport is \"tcp\" on the client, \"udp\" on the server");
  auto old = hello_message(server);
  old["v"] = 0;
  EXPECT_EQ(hello_mismatch(old, server), "protocol version 0, server speaks 1");
  EXPECT_EQ(hello_mismatch(nlohmann::json{{"type", "hello"}}, server), "malformed hello");
}

}  // namespace
}  // namespace spiral
