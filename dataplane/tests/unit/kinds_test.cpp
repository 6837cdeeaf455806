// The bench-kind registry: every kind this build knows is listed, complete for its run mode, and
// its keys and flags agree with what parse_cell and the command line accept.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "app/cli.hpp"
#include "config/cell_parse.hpp"
#include "kinds/registry.hpp"
#include "sys/errors.hpp"

namespace spiral {
namespace {

// The list is the registry's (kinds/registry.cpp): each name once, and the messages name them
// all in its order, "a, b or c".
TEST(Kinds, EveryKindIsRegisteredOnceInOrder) {
  std::vector<std::string> names;
  for (const BenchKind* k : bench_kinds()) names.push_back(k->name);
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a name registered twice";
  std::string listed, piped;
  for (size_t i = 0; i < names.size(); ++i) {
    const bool last = i + 1 == names.size();
    listed += (i == 0 ? "" : last ? " or " : ", ") + names[i];
    piped += (i == 0 ? "" : last ? " | " : ", ") + names[i];
  }
  EXPECT_EQ(kind_names(), listed);
  EXPECT_EQ(kind_names("|"), piped);
  for (const std::string& name : names) EXPECT_EQ(&kind_named(name), find_kind(name));
  EXPECT_EQ(find_kind("mpi"), nullptr);
  EXPECT_THROW(kind_named("mpi"), BadInput);
}

TEST(Kinds, EachIsCompleteForItsRunMode) {
  for (const BenchKind* k : bench_kinds()) {
    SCOPED_TRACE(k->name);
    EXPECT_FALSE(k->backend.empty());
    EXPECT_FALSE(k->drops_kind.empty());
    EXPECT_GE(k->max_batch, k->batch_default);
    EXPECT_NE(k->verdict, nullptr) << "every kind judges its own figures";
    if (k->run_mode == RunMode::two_sided) {
      EXPECT_NE(k->make_engine, nullptr);
      EXPECT_NE(k->caught_up, nullptr) << "without it the server always waits out grace_ms";
      EXPECT_NE(k->account, nullptr);
    }
    if (k->run_mode == RunMode::in_process) {
      EXPECT_NE(k->make_session, nullptr);
    }
    if (k->run_mode == RunMode::ranks) {
      EXPECT_NE(k->local_ranks, nullptr);
      EXPECT_NE(k->run_rank, nullptr);
    }
    EXPECT_EQ(k->parse != nullptr, !k->keys.empty()) << "a kind with keys reads them";
  }
}

TEST(Kinds, BackendsAndDropKindsAreDaqirisNames) {
  EXPECT_EQ(kind_named("tcp").backend, "socket-tcp");
  EXPECT_EQ(kind_named("udp").backend, "socket-udp");
  EXPECT_EQ(kind_named("raw").backend, "dpdk");
  EXPECT_EQ(kind_named("roce").backend, "rdma");
  EXPECT_EQ(kind_named("tcp").drops_kind, "tcp-nstat-retrans+inerrs");
  EXPECT_EQ(kind_named("udp").drops_kind, "udp-proc-net-udp-drops");
  EXPECT_EQ(kind_named("raw").drops_kind, "dpdk-imissed+ierrors+nombuf");
  EXPECT_EQ(kind_named("roce").drops_kind, "rdma-cqe-error");
  EXPECT_EQ(kind_named("nccl").backend, "nccl");
  EXPECT_EQ(kind_named("gpucopy").backend, "cuda");
}

// Every flag a kind brings reaches the cell under its key.
TEST(Kinds, EveryKindFlagIsOnTheCommandLine) {
  std::ostringstream help;
  const char* argv[] = {"spiral-dataplane", "--help"};
  parse_command_line(2, argv, help);
  for (const BenchKind* k : bench_kinds())
    for (const KindFlag& f : k->flags) {
      EXPECT_NE(help.str().find(f.flag), std::string::npos) << f.flag;
      // core lists go under "cores"; a kind's flag writes one of its own keys or a common key
      if (f.type != KindFlag::Type::core_list) {
        EXPECT_TRUE(k->keys.count(f.key) || common_cell_keys().count(f.key))
            << k->name << " " << f.flag << " writes a key that is neither its own nor common";
      }
    }
}

}  // namespace
}  // namespace spiral
