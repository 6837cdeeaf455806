#include "gpu/assembly_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

namespace spiral::gpu {
namespace {

constexpr DatagramLayout kLayout{40, 16, 4};  // 24 payload bytes, seq at byte 4

std::vector<std::byte> datagram(uint64_t seq, uint8_t fill) {
  std::vector<std::byte> d(kLayout.datagram_bytes, std::byte{0xee});
  for (int i = 0; i < 8; ++i) d[kLayout.seq_offset + i] = std::byte(seq >> (8 * i));
  std::fill(d.begin() + kLayout.header_bytes, d.end(), std::byte{fill});
  return d;
}

struct Arrivals {
  std::vector<std::byte> packets;
  std::vector<uint32_t> offsets;
  void add(const std::vector<std::byte>& d) {
    offsets.push_back(static_cast<uint32_t>(packets.size()));
    packets.insert(packets.end(), d.begin(), d.end());
    packets.insert(packets.end(), 3, std::byte{0x77});  // unaligned, with junk between
  }
};

TEST(ReorderReference, ShuffledDuplicatedDroppedAndStrays) {
  const uint32_t slots = 6;
  const uint64_t base = 600;
  Arrivals a;
  a.add(datagram(603, 3));
  a.add(datagram(600, 0));
  a.add(datagram(605, 5));
  a.add(datagram(603, 99));  // duplicate: ignored, the first arrival stays
  a.add(datagram(599, 98));  // before the window
  a.add(datagram(606, 97));  // after it
  a.add(datagram(601, 1));   // 602 and 604 never arrive
  auto w = reorder_reference(a.packets, a.offsets, kLayout, base, slots);
  ASSERT_EQ(w.size(), slots * 24u);
  const int expect[slots] = {0, 1, -1, 3, -1, 5};
  for (uint32_t s = 0; s < slots; ++s)
    for (uint32_t b = 0; b < 24; ++b)
      ASSERT_EQ(w[s * 24 + b], std::byte(expect[s] < 0 ? 0 : expect[s])) << "slot " << s;
}

TEST(ReorderReference, SequenceNumbersAreLittleEndian64Bit) {
  std::byte raw[8] = {std::byte{0x08}, std::byte{0x07}, std::byte{0x06}, std::byte{0x05},
                      std::byte{0x04}, std::byte{0x03}, std::byte{0x02}, std::byte{0x01}};
  EXPECT_EQ(read_seq(raw), 0x0102030405060708ull);
}

TEST(GatherReference, KeepsOrder) {
  std::vector<std::byte> x(5, std::byte{1}), y(3, std::byte{2}), z(7, std::byte{3});
  const Segment segs[] = {{x.data(), x.size()}, {y.data(), y.size()}, {z.data(), z.size()}};
  auto out = gather_reference(segs);
  ASSERT_EQ(out.size(), 15u);
  EXPECT_EQ(out[4], std::byte{1});
  EXPECT_EQ(out[5], std::byte{2});
  EXPECT_EQ(out[8], std::byte{3});
}

}  // namespace
}  // namespace spiral::gpu
