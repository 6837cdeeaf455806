// The progress line sbctl watch reads (pkg/liveview parses it): one JSON object, cumulative
// measured bytes per queue, printed only when due.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output/progress.hpp"

namespace spiral {
namespace {

std::vector<QueueCounters> queues(std::vector<uint64_t> measured_bytes) {
  std::vector<QueueCounters> qs(measured_bytes.size());
  for (size_t i = 0; i < qs.size(); ++i) {
    qs[i].by_phase[index(Phase::warmup)].bytes = 999;  // not in the window: never reported
    qs[i].by_phase[index(Phase::measure)].bytes = measured_bytes[i];
    qs[i].kernel_drops = i;
  }
  return qs;
}

TEST(Progress, ReceiverLineHasMeasuredBytesPerQueue) {
  auto j = nlohmann::json::parse(progress_line(true, "queue", 3000, queues({1250, 2500})));
  EXPECT_EQ(j["event"], "progress");
  EXPECT_EQ(j["role"], "server");
  EXPECT_EQ(j["unit"], "queue");
  EXPECT_EQ(j["t_ms"], 3000);
  ASSERT_EQ(j["streams"].size(), 2u);
  EXPECT_EQ(j["streams"][1]["id"], 1);
  EXPECT_EQ(j["streams"][1]["rx_bytes"], 2500);
  EXPECT_EQ(j["streams"][1]["tx_bytes"], 0);
  EXPECT_EQ(j["streams"][1]["drops"], 1);
}

TEST(Progress, SenderLineCountsTx) {
  auto j = nlohmann::json::parse(progress_line(false, "queue", 1000, queues({7})));
  EXPECT_EQ(j["role"], "client");
  EXPECT_EQ(j["streams"][0]["tx_bytes"], 7);
  EXPECT_EQ(j["streams"][0]["rx_bytes"], 0);
}

TEST(Progress, OneLinePerPeriodOnceTheWindowStarts) {
  std::ostringstream out;
  ProgressLine p(out, true, "queue", Millis(1000));
  const auto t0 = Clock::now();
  EXPECT_FALSE(p.due(t0 + Millis(5000)));  // before the window: nothing
  p.begin(t0);
  EXPECT_FALSE(p.due(t0 + Millis(999)));
  ASSERT_TRUE(p.due(t0 + Millis(1000)));
  p.print(t0 + Millis(1000), queues({1}));
  EXPECT_FALSE(p.due(t0 + Millis(1500)));
  EXPECT_TRUE(p.due(t0 + Millis(2000)));
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  EXPECT_EQ(nlohmann::json::parse(text)["t_ms"], 1000);
}

}  // namespace
}  // namespace spiral
