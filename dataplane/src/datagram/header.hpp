#pragma once
// Header at the start of every sequenced datagram (UDP payload, raw frame payload): lets the receiver count exactly per pair
// (sequence number, pair id) and ignore strays (magic, run id).
#include <cstdint>
#include <cstring>

namespace spiral::datagram {

constexpr uint32_t kMagic = 0x4c525053;  // "SPRL" in little-endian memory order
constexpr uint16_t kFlagMeasured = 1;    // sent inside the measured window

struct DatagramHeader {
  uint32_t magic;
  uint32_t run_id;
  uint64_t seq;      // per pair, from 0, contiguous across warm-up and window
  uint16_t pair;
  uint16_t flags;
  uint32_t reserved;
};
static_assert(sizeof(DatagramHeader) == 24);

constexpr uint32_t kHeaderBytes = sizeof(DatagramHeader);

// memcpy, not a cast: receive buffers carry no alignment promise.
inline void write_header(void* dst, const DatagramHeader& h) { std::memcpy(dst, &h, sizeof h); }
inline DatagramHeader read_header(const void* src) {
  DatagramHeader h;
  std::memcpy(&h, src, sizeof h);
  return h;
}

}  // namespace spiral::datagram
