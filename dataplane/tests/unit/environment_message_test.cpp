// The environment message of the relay container (output/environment_message.hpp): it decodes
// back to the capture, fits its 4 KiB, and a capture too big even for it is cut visibly.
#include "output/environment_message.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace spiral {
namespace {

using json = nlohmann::ordered_json;

std::string base64_decode(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    v = (v << 6) | static_cast<uint32_t>(alphabet.find(c));
    if ((bits += 6) >= 8) out += static_cast<char>((v >> (bits -= 8)) & 0xff);
  }
  return out;
}

std::string gunzip(const std::string& bytes) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

json decode(const std::string& message) {
  const std::string prefix = kEnvironmentMessagePrefix;
  EXPECT_EQ(message.substr(0, prefix.size()), prefix);
  return json::parse(gunzip(base64_decode(message.substr(prefix.size()))));
}

// A host of n NICs and m GPUs, each with a distinct serial-like string gzip cannot fold away.
json host(int nics, int gpus) {
  json env = {{"dataplane_version", "0.1.0"}, {"dataplane_revision", "abc123"}, {"cpu_model", "Neoverse-V2"},
              {"kernel_cmdline", "BOOT_IMAGE=/vmlinuz root=UUID=1234 iommu=pt"}, {"nics", json::array()},
              {"gpus", json::array()}};
  for (int i = 0; i < nics; ++i)
    env["nics"].push_back({{"netdev", "enp" + std::to_string(i) + "s0f0np0"}, {"driver", "mlx5_core"},
                           {"firmware", "28.39." + std::to_string(1000 + i * 7919 % 9973)},
                           {"driver_version", "24.10-1.1.4"}, {"pci_address", "0000:" + std::to_string(10 + i) + ":00.0"},
                           {"pci_id", "15b3:1021"}, {"speed_mbps", 200000}, {"mtu", 9000}, {"rx_ring", 8192},
                           {"tx_ring", 8192}, {"pcie_width", 16}, {"pcie_gen", 5}, {"numa_node", i / 4},
                           {"speed_max_mbps", 400000}, {"pcie_max_width", 16}, {"pcie_max_gen", 5}, {"pcie_mps", 256},
                           {"pcie_mps_max", 512}, {"serial", std::to_string(0x9e3779b97f4a7c15ULL * (i + 1))}});
  for (int i = 0; i < gpus; ++i)
    env["gpus"].push_back(json::array({"0000:" + std::to_string(0x18 + i) + ":00.0", 5, 5, 16, 16, 256,
                                       std::to_string(0x85ebca6bULL * (i + 7) * (i + 3)), 0, 18, 18}));
  return env;
}

TEST(EnvironmentMessage, DecodesToTheCaptureWhole) {
  const json env = host(4, 8);
  const std::string message = environment_message(env);
  EXPECT_LE(message.size(), 4096u);
  const json body = decode(message);
  EXPECT_EQ(body["env"], env);
  EXPECT_EQ(body["truncated"], "");
}

TEST(EnvironmentMessage, CarriesMoreThanTheSummaryCouldRaw) {
  // Eight links and sixteen GPUs: far past 4 KiB as JSON, whole once compressed.
  json env = host(8, 16);
  env["kernel_cmdline"] = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-1015-nvidia-64k root=UUID=2f6e1c3a-7d4b-4e1f-9a6c-0b8e5d2c1f7a ro "
                          "iommu=pt intel_iommu=on hugepagesz=1G hugepages=64 isolcpus=8-71 nohz_full=8-71 rcu_nocbs=8-71 "
                          "default_hugepagesz=1G pci=realloc=off mitigations=off...";
  ASSERT_GT(env.dump().size(), 4096u);
  const json body = decode(environment_message(env));
  EXPECT_EQ(body["env"]["nics"].size(), 8u);
  EXPECT_EQ(body["env"]["gpus"].size(), 16u);
  EXPECT_EQ(body["truncated"], "");
}

TEST(EnvironmentMessage, TooBigEvenCompressedIsCutVisibly) {
  const json env = host(8, 16);
  const std::string message = environment_message(env, "", 700);
  EXPECT_LE(message.size(), 700u);
  const json body = decode(message);
  const std::string truncated = body["truncated"];
  EXPECT_NE(truncated.find("of 16 GPUs"), std::string::npos) << truncated;
  EXPECT_NE(truncated.find("to fit 700 bytes"), std::string::npos) << truncated;
  EXPECT_LT(body["env"]["gpus"].size() + body["env"]["nics"].size(), 24u);
  EXPECT_GE(body["env"]["nics"].size(), 1u);  // the first NIC stays
  EXPECT_EQ(body["env"]["nics"][0]["netdev"], "enp0s0f0np0");
  EXPECT_EQ(body["env"]["cpu_model"], "Neoverse-V2");
}

TEST(EnvironmentMessage, OnlyAHugeStringLeftKeepsTheVersionAndSaysSo) {
  json env = host(1, 0);
  std::string noise;
  for (int i = 0; i < 20000; ++i) noise += static_cast<char>('!' + (i * 7919 + i / 3 * 104729) % 90);
  env["kernel_cmdline"] = noise;
  const json body = decode(environment_message(env, "", 600));
  EXPECT_EQ(body["env"]["dataplane_revision"], "abc123");
  EXPECT_FALSE(body["env"].contains("kernel_cmdline"));
  EXPECT_NE(body["truncated"].get<std::string>().find("everything but"), std::string::npos);
}

TEST(EnvironmentMessage, NoCaptureSaysWhy) {
  const json body = decode(environment_message(nullptr, "not captured: exit code 2"));
  EXPECT_TRUE(body["env"].is_null());
  EXPECT_EQ(body["note"], "not captured: exit code 2");
}

TEST(EnvironmentMessage, RelayCopiesTheWrittenFile) {
  const std::string dir = ::testing::TempDir();
  const std::string from = dir + "/spiral-env-relay-in", to = dir + "/spiral-env-relay-out";
  ASSERT_TRUE(write_environment_file(from, host(2, 1)));
  ASSERT_EQ(relay_environment(from, to), 0);
  std::ifstream in(to);
  std::string copied((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(decode(copied)["env"]["nics"].size(), 2u);
  std::remove(from.c_str());
  std::remove(to.c_str());
}

// The facts-only mode writes this host's capture, without link interfaces, as a message: the
// kernel and the CPU are there on any Linux host.
TEST(EnvironmentMessage, CaptureOnlyWritesThisHostsFacts) {
  const std::string to = ::testing::TempDir() + "/spiral-env-capture";
  ASSERT_EQ(capture_environment(to), 0);
  std::ifstream in(to);
  std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json body = decode(written);
  EXPECT_FALSE(body["env"]["kernel"].get<std::string>().empty());
  EXPECT_GT(body["env"]["cpus_online"].get<int>(), 0);
  EXPECT_TRUE(!body["env"].contains("nics") || body["env"]["nics"].empty());
  std::remove(to.c_str());
  EXPECT_NE(capture_environment("/nonexistent-dir/spiral-env"), 0);
}

}  // namespace
}  // namespace spiral
