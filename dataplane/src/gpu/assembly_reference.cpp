#include "gpu/assembly_reference.hpp"

#include <cstring>

namespace spiral::gpu {

uint64_t read_seq(const std::byte* at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(at[i]);
  return v;
}

std::vector<std::byte> reorder_reference(std::span<const std::byte> packets, std::span<const uint32_t> offsets,
                                         const DatagramLayout& layout, uint64_t base, uint32_t slots) {
  const size_t slot_bytes = layout.datagram_bytes - layout.header_bytes;
  std::vector<std::byte> window(size_t{slots} * slot_bytes, std::byte{0});
  std::vector<bool> filled(slots, false);
  for (uint32_t off : offsets) {
    const uint64_t seq = read_seq(packets.data() + off + layout.seq_offset);
    if (seq < base || seq - base >= slots) continue;
    const size_t slot = static_cast<size_t>(seq - base);
    if (filled[slot]) continue;  // a duplicate: the first arrival stays
    filled[slot] = true;
    std::memcpy(window.data() + slot * slot_bytes, packets.data() + off + layout.header_bytes, slot_bytes);
  }
  return window;
}

std::vector<std::byte> gather_reference(std::span<const Segment> segments) {
  std::vector<std::byte> out;
  for (const Segment& s : segments) out.insert(out.end(), s.data, s.data + s.bytes);
  return out;
}

}  // namespace spiral::gpu
