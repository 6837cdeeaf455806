#include "transports/nccl/network_env.hpp"

#include <gtest/gtest.h>

#include <map>

#include "sys/errors.hpp"

namespace spiral::nccl {
namespace {

std::map<std::string, std::string> as_map(const EnvList& env) { return {env.begin(), env.end()}; }

TEST(NetworkEnv, PodDevicesBecomeExactNcclSelections) {
  // seed 004's four RoCE devices, and a Multus interface
  const auto env = as_map(nccl_environment(
      {{"rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1"}, "net1", true}, "/tmp/rank0.log"));
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1");
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=net1");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");  // the transport report depends on it
  EXPECT_EQ(env.at("NCCL_DEBUG_FILE"), "/tmp/rank0.log");
}

TEST(NetworkEnv, NothingGivenLeavesNcclItsOwnChoice) {
  const auto env = as_map(nccl_environment({}, "/tmp/x.log"));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.count("NCCL_SOCKET_IFNAME"), 0u);
}

TEST(NetworkEnv, RefusesNamesThatWouldChangeNcclsSelection) {
  EXPECT_THROW(nccl_environment({{"mlx5_0,mlx5_1"}, "", false}, "/tmp/x.log"), BadInput);
  EXPECT_THROW(nccl_environment({{}, "^eth0", false}, "/tmp/x.log"), BadInput);
}

}  // namespace
}  // namespace spiral::nccl
