#include "transports/roce/retry_counters.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace spiral::roce {
namespace {

namespace fs = std::filesystem;

class SysfsTree : public ::testing::Test {
 protected:
  void SetUp() override {
    // one tree per process: ctest -j runs each test in its own process at once
    root_ = fs::path(::testing::TempDir()) / ("roce_sysfs." + std::to_string(::getpid()));
    fs::remove_all(root_);
    write("rxe0/ports/1/hw_counters/completer_retry_err", "3\n");
    write("rxe0/ports/1/hw_counters/rcvd_rnr_err", "4\n");
    write("rxe0/ports/1/hw_counters/duplicate_request", "10\n");
    write("rxe0/ports/1/hw_counters/sent_pkts", "999\n");
    write("mlx5_0/hw_counters/local_ack_timeout_err", "1\n");  // device-wide only
    write("mlx5_0/ports/1/hw_counters/packet_seq_err", "2\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(SysfsTree, SumsTheKnownCountersOfEachSide) {
  RetryCounters requester(root_.string(), "rxe0", 1, RetryCounters::Side::requester);
  EXPECT_TRUE(requester.available());
  EXPECT_EQ(requester.read(), 7u);
  EXPECT_EQ(requester.names(), "completer_retry_err+rcvd_rnr_err");
  RetryCounters responder(root_.string(), "rxe0", 1, RetryCounters::Side::responder);
  EXPECT_EQ(responder.read(), 10u);
  write("rxe0/ports/1/hw_counters/duplicate_request", "15\n");
  EXPECT_EQ(responder.read(), 15u);  // read anew each time
}

TEST_F(SysfsTree, PortAndDeviceCountersBothCount) {
  RetryCounters mlx(root_.string(), "mlx5_0", 1, RetryCounters::Side::requester);
  EXPECT_EQ(mlx.read(), 3u);
}

TEST_F(SysfsTree, NoCountersIsNoneNotAnError) {
  RetryCounters none(root_.string(), "siw0", 1, RetryCounters::Side::requester);
  EXPECT_FALSE(none.available());
  EXPECT_EQ(none.read(), 0u);
  EXPECT_EQ(none.names(), "none");
}

}  // namespace
}  // namespace spiral::roce
