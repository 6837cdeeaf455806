// The pair's path from NVML's answers. NVML needs a GPU and its driver, which this machine lacks:
// FakeNvml is a stand-in table that answers as nvml.h documents, per test.
#include "transports/gpucopy/peer_path.hpp"

#include <gtest/gtest.h>

#include "gpu/nvml_sampler.hpp"

namespace spiral::gpucopy {
namespace {

constexpr int kNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED

struct FakeNvml {
  int p2p_rc = 0, nvlink_status = 0;  // nvmlDeviceGetP2PStatus's return and *p2pStatus
  int ancestor_rc = 0, level = 40;
  unsigned active_links = 18;
  int asked_index = -1;
  NvmlTopologyApi api() {
    NvmlTopologyApi a;
    a.p2p_status = [this](void*, void*, int index, int* status) {
      asked_index = index;
      *status = nvlink_status;
      return p2p_rc;
    };
    a.common_ancestor = [this](void*, void*, int* out) {
      *out = level;
      return ancestor_rc;
    };
    a.nvlink_state = [this](void*, unsigned link, int* active) {
      *active = link < active_links;
      return 0;
    };
    return a;
  }
};

TEST(PeerPath, NvlinkCountsTheSourcesActiveLinks) {
  FakeNvml f;
  EXPECT_EQ(classify_path(f.api(), nullptr, nullptr), "NV18");
  EXPECT_EQ(f.asked_index, 2);  // NVML_P2P_CAPS_INDEX_NVLINK
  f.active_links = 4;
  EXPECT_EQ(classify_path(f.api(), nullptr, nullptr), "NV4");
  NvmlTopologyApi no_state = f.api();
  no_state.nvlink_state = nullptr;  // a library without nvmlDeviceGetNvLinkState
  EXPECT_EQ(classify_path(no_state, nullptr, nullptr), "NV");
}

TEST(PeerPath, WithoutNvlinkThePcieAncestorNamesIt) {
  FakeNvml f;
  f.nvlink_status = 5;  // NVML_P2P_STATUS_NOT_SUPPORTED
  const std::pair<int, const char*> levels[] = {{0, "PIX"},  {10, "PIX"}, {20, "PXB"},    {30, "PHB"},
                                                {40, "NODE"}, {50, "SYS"}, {60, "unknown"}};
  for (auto [level, name] : levels) {
    f.level = level;
    EXPECT_EQ(classify_path(f.api(), nullptr, nullptr), name) << "level " << level;
  }
  f.p2p_rc = kNotSupported;  // the query itself refused: not NVLink either
  f.nvlink_status = 0;
  f.level = 50;
  EXPECT_EQ(classify_path(f.api(), nullptr, nullptr), "SYS");
}

TEST(PeerPath, UnknownWhenNvmlCannotSay) {
  FakeNvml f;
  f.nvlink_status = 5;
  f.ancestor_rc = kNotSupported;
  EXPECT_EQ(classify_path(f.api(), nullptr, nullptr), "unknown");
  EXPECT_EQ(classify_path(NvmlTopologyApi{}, nullptr, nullptr), "unknown");
}

TEST(PeerPath, NoNvmlLibraryIsUnknown) {
  const gpu::NvmlSampler a("0000:01:00.0", std::chrono::milliseconds(100), "libnvidia-ml-absent.so.1");
  const gpu::NvmlSampler b("0000:02:00.0", std::chrono::milliseconds(100), "libnvidia-ml-absent.so.1");
  EXPECT_EQ(nvml_path(a, b), "unknown");
  EXPECT_EQ(a.symbol("nvmlDeviceGetP2PStatus"), nullptr);
}

}  // namespace
}  // namespace spiral::gpucopy
