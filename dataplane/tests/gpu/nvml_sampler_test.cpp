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
