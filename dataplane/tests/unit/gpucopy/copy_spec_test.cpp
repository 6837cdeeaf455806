#include "transports/gpucopy/copy_spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sys/errors.hpp"

namespace spiral::gpucopy {
namespace {

TEST(CopySpec, CasesCoverEachHostMemoryThenDeviceToDeviceOnce) {
  const auto all = cases(CopySpec{});
  ASSERT_EQ(all.size(), 5u);  // h2d x2, d2h x2, d2d
  EXPECT_EQ(all[0].direction, Direction::h2d);
  EXPECT_EQ(all[0].memory_name(), "pinned");
  EXPECT_EQ(all[1].memory_name(), "pageable");
  EXPECT_EQ(all[2].direction, Direction::d2h);
  EXPECT_EQ(all[4].direction, Direction::d2d);
  EXPECT_EQ(all[4].memory_name(), "device");
  CopySpec only_d2d;
  only_d2d.directions = {Direction::d2d};
  EXPECT_EQ(cases(only_d2d).size(), 1u);
}

TEST(CopySpec, NamesRoundTripAndUnknownOnesAreRefused) {
  for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d}) EXPECT_EQ(direction_named(name(d)), d);
  EXPECT_EQ(host_memory_named("pageable"), HostMemory::pageable);
  EXPECT_THROW(direction_named("h2h"), BadInput);
  EXPECT_THROW(host_memory_named("managed"), BadInput);
}

// A directory shaped like sysfs (a stand-in: this machine's sysfs has no GPU), to check the
// lookup's spelling rules.
TEST(CopySpec, NumaNodeFromSysfsInCudasSpelling) {
  const auto root = std::filesystem::temp_directory_path() / ("spiral-sysfs-" + std::to_string(::getpid()));
  const auto dev = root / "bus/pci/devices/0000:1b:00.0";
  std::filesystem::create_directories(dev);
  std::ofstream(dev / "numa_node") << "1\n";
  EXPECT_EQ(numa_node_of("0000:1B:00.0", root.string()), 1);
  EXPECT_EQ(numa_node_of("00000000:1B:00.0", root.string()), 1);  // CUDA's 8-digit domain
  EXPECT_EQ(numa_node_of("0000:2C:00.0", root.string()), -1);
  std::filesystem::remove_all(root);
}

TEST(CopySpec, JsonNamesEveryField) {
  const auto j = to_json(GpuPlacement{0, "NVIDIA H200", "0000:1B:00.0", 0, 5, 16, 5, 16});
  EXPECT_EQ(j["pcie_width"], 16);
  EXPECT_EQ(j["numa_node"], 0);
  const auto row = to_json(CopyRow{0, "h2d", "pinned", 8 << 20, 150.0, 55.9});
  EXPECT_EQ(row["memory"], "pinned");
}

}  // namespace
}  // namespace spiral::gpucopy
