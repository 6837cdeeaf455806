// The memory provider (src/memory/region.hpp) on the host kinds; device memory and CUDA
// registration are exercised by gpu_correctness on a GPU machine.
#include "memory/region.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstring>
#include <string>

#include "sys/errors.hpp"

namespace spiral::memory {
namespace {

TEST(MemoryRegion, HostIsWholePagesWritableAndNotOnTheGpu) {
  auto r = allocate({BufferMemory::host, 5000, "test buffer"});
  ASSERT_NE(r->data(), nullptr);
  EXPECT_EQ(r->size(), 5000u);
  EXPECT_EQ(r->mapped(), 8192u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(r->data()) % 4096, 0u);
  std::memset(r->data(), 0xab, r->size());
  EXPECT_EQ(r->data()[4999], std::byte{0xab});
  EXPECT_EQ(r->device_pointer(), nullptr);
  EXPECT_FALSE(r->cuda_registered());
  EXPECT_EQ(r->kind(), BufferMemory::host);
}

TEST(MemoryRegion, HostPinnedWithoutRegistrationIsLockedHostMemory) {
  // 64 KiB fits the smallest usual RLIMIT_MEMLOCK
  auto r = allocate({BufferMemory::host_pinned, 16 << 10, "pinned test buffer"});
  ASSERT_NE(r->data(), nullptr);
  EXPECT_EQ(r->kind(), BufferMemory::host_pinned);
  EXPECT_FALSE(r->cuda_registered());
  r->data()[0] = std::byte{1};
}

TEST(MemoryRegion, ALockOverTheLimitIsBadInputNamingTheLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 64 << 10;  // the soft limit only: restored below
  ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &low), 0);
  bool refused = false;
  std::string message;
  try {
    auto r = allocate({BufferMemory::host_pinned, 4 << 20, "big test buffer"});
  } catch (const BadInput& e) {
    refused = true;
    message = e.what();
  }
  setrlimit(RLIMIT_MEMLOCK, &saved);
  if (!refused) GTEST_SKIP() << "this process has CAP_IPC_LOCK: the limit refuses nothing";
  EXPECT_NE(message.find("big test buffer"), std::string::npos) << message;
  EXPECT_NE(message.find("RLIMIT_MEMLOCK (ulimit -l) is 64 KiB"), std::string::npos) << message;
}

#ifndef SPIRAL_HAVE_CUDA
TEST(MemoryRegion, WithoutCudaDeviceMemoryAndCudaRegistrationAreRefused) {
  EXPECT_THROW(allocate({BufferMemory::device, 4096, "device buffer"}), BadInput);
  EXPECT_THROW(allocate({BufferMemory::host_pinned, 4096, "mapped buffer", kRegisterCuda}), BadInput);
}
#endif

}  // namespace
}  // namespace spiral::memory
