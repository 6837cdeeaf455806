#include "metrics/cpu_stat.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace spiral {
namespace {

CpuSample load(const std::string& name) {
  std::ifstream in(std::string(SPIRAL_TEST_DATA) + "/" + name);
  EXPECT_TRUE(in) << name;
  return parse_proc_stat(in);
}

// Captured on the 2-core dev VM around `taskset -c 1 timeout 1 sh -c 'while :; do :; done'`.
TEST(CpuStat, CapturedSamplesShowTheSpinningCore) {
  CpuSample before = load("proc_stat_before.txt"), after = load("proc_stat_after.txt");
  ASSERT_EQ(before.size(), 2u);  // the aggregate "cpu" line is not a core
  // cpu1: user +100, system +1, softirq +1, idle +0 -> 102 of 102 ticks busy.
  EXPECT_EQ(busy_mpct(before, after, 1), 100000);
  // cpu0: user +5, system +2, idle +90 -> 7 of 97 ticks = 7.216 %.
  EXPECT_EQ(busy_mpct(before, after, 0), 7216);
}

TEST(CpuStat, IrqSoftirqAndStealAreBusyIowaitIsIdle) {
  std::istringstream a("cpu3 100 0 100 800 0 0 0 0 0 0\n");
  //                          user nice sys idle iowait irq softirq steal
  std::istringstream b("cpu3 110 10 110 820 20 10 10 10 0 0\n");
  // busy +60 (10+10+10+10+10+10), idle +20, iowait +20 -> 60 / 100
  EXPECT_EQ(busy_mpct(parse_proc_stat(a), parse_proc_stat(b), 3), 60000);
}

TEST(CpuStat, UnknownWhenTheCoreIsMissingOrTimeDidNotAdvance) {
  CpuSample s = load("proc_stat_before.txt");
  EXPECT_EQ(busy_mpct(s, s, 0), -1);   // no ticks between the samples
  EXPECT_EQ(busy_mpct(s, s, 17), -1);  // not on this machine
  EXPECT_FALSE(read_proc_stat().empty());
}

}  // namespace
}  // namespace spiral
