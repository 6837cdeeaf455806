// The ranks run driver (run/ranks.cpp): one child process per local rank, the worst state wins,
// local 0's figures are the pod's. The kind here is a test kind made for this test (a stand-in
// for nccl and gpucopy, whose ranks need a GPU): its ranks report what the test tells them to.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

#include "metrics/run_result.hpp"
#include "run/roles.hpp"
#include "sys/errors.hpp"

namespace spiral {
namespace {

nlohmann::json (*behaviour)(uint32_t local) = nullptr;

uint32_t three(const Cell&) { return 3; }

nlohmann::json run_rank(const Cell& c, uint32_t local, void (*listening)(const Cell&)) {
  if (listening) listening(c);
  nlohmann::json out = behaviour(local);
  if (out.contains("figures")) out["figures"]["pid"] = ::getpid();  // where the rank ran
  return out;
}

Cell cell_of_test_kind(BenchKind& k, const std::string& ready_file = "") {
  k.name = "test-ranks";
  k.run_mode = RunMode::ranks;
  k.local_ranks = three;
  k.run_rank = run_rank;
  Cell c;
  c.kind = &k;
  c.role = Role::rank;
  c.ready_file = ready_file;
  return c;
}

TEST(RanksDriver, WorstStateWinsAndLocalZeroReports) {
  BenchKind k;
  const std::string ready = ::testing::TempDir() + "ranks_ready";
  std::remove(ready.c_str());
  Cell c = cell_of_test_kind(k, ready);
  behaviour = [](uint32_t local) -> nlohmann::json {
    if (local == 2) return {{"state", "Invalid"}, {"reason", "rank 2 saw sockets"}};
    return {{"state", "Valid"}, {"reason", ""}, {"figures", {{"local", local}}}};
  };
  const RunResult r = run_ranks(c);
  EXPECT_EQ(r.state, RunState::invalid);
  EXPECT_EQ(r.reason, "rank 2 saw sockets");
  const auto* figures = std::any_cast<nlohmann::json>(&r.figures);
  ASSERT_NE(figures, nullptr);
  EXPECT_EQ((*figures)["local"], 0);
  EXPECT_NE((*figures)["pid"], ::getpid()) << "ranks run in child processes";
  std::ifstream in(ready);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("\"event\":\"ready\""), std::string::npos) << "local 0 announces readiness: " << line;
}

TEST(RanksDriver, ARankThatDiesIsAFailureNamingIt) {
  BenchKind k;
  Cell c = cell_of_test_kind(k);
  behaviour = [](uint32_t local) -> nlohmann::json {
    if (local == 1) ::raise(SIGKILL);
    return {{"state", "Valid"}, {"reason", ""}};
  };
  const RunResult r = run_ranks(c);
  EXPECT_EQ(r.state, RunState::failed);
  EXPECT_EQ(r.reason, "local rank 1 was killed by signal 9 without a report");
}

TEST(RanksDriver, ARefusalIsBadInput) {
  BenchKind k;
  Cell c = cell_of_test_kind(k);
  behaviour = [](uint32_t local) -> nlohmann::json {
    if (local == 0) throw BadInput("gpus: 3 asked, 1 visible");
    return {{"state", "Valid"}, {"reason", ""}};
  };
  try {
    run_ranks(c);
    FAIL() << "a refusal of a rank must reach the edge as bad input";
  } catch (const BadInput& e) {
    EXPECT_STREQ(e.what(), "gpus: 3 asked, 1 visible");
  }
}

}  // namespace
}  // namespace spiral
