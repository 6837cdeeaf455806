#include "gpu/nvml_sampler.hpp"

#include <gtest/gtest.h>

namespace spiral::gpu {
namespace {

TEST(NvmlSampler, AbsentLibrarySaysSoAndReportsUnknown) {
  NvmlSampler s("", std::chrono::milliseconds(10), "libnvidia-ml-does-not-exist.so.1");
  EXPECT_FALSE(s.available());
  EXPECT_NE(s.status().find("NVML absent"), std::string::npos) << s.status();
  s.start();  // harmless without NVML
  s.stop();
  EXPECT_EQ(s.figures().sm_mpct, -1);
  EXPECT_EQ(s.figures().mem_mpct, -1);
  EXPECT_EQ(s.figures().samples, 0u);
}

TEST(NvmlSampler, TheRealLibraryEitherWorksOrExplains) {
  NvmlSampler s("");
  if (s.available()) {
    EXPECT_EQ(s.status(), "ok");
    s.start();
    s.stop();
    EXPECT_GE(s.figures().samples, 1u);
    EXPECT_GE(s.figures().sm_mpct, 0);
  } else {
    EXPECT_FALSE(s.status().empty());
  }
}

}  // namespace
}  // namespace spiral::gpu

namespace spiral::gpu {
namespace {

TEST(NvmlSampler, PcieLinkIsUnknownWithoutNvml) {
  NvmlSampler s("", std::chrono::milliseconds(10), "libnvidia-ml-does-not-exist.so.1");
  const auto link = s.pcie_link();
  EXPECT_EQ(link.generation, -1);
  EXPECT_EQ(link.width, -1);
  EXPECT_EQ(link.max_generation, -1);
}

TEST(NvmlSampler, PcieLinkOfARealGpuIsPlausible) {
  NvmlSampler s("");
  if (!s.available()) GTEST_SKIP() << "no NVML here: " << s.status();
  const auto link = s.pcie_link();
  if (link.max_generation < 0) GTEST_SKIP() << "this GPU reports no PCIe link (not on PCIe)";
  EXPECT_GE(link.max_generation, 1);
  EXPECT_LE(link.max_generation, 6);
  EXPECT_GE(link.max_width, 1);
  EXPECT_LE(link.max_width, 32);
}

}  // namespace
}  // namespace spiral::gpu
