#pragma once
// The raw transport's frames: Ethernet / IPv4 / UDP with the same 24-byte sequence header as the
// UDP socket transport (datagram/header.hpp) at the start of the UDP payload. A TX queue's
// frames are built once (build_frame) into every buffer of its pool; the hot loop only stamps the
// sequence number and flags (stamp). Pure code: no DPDK, unit-tested on its own.
#include <array>
#include <bit>
#include <cstdint>
#include <cstddef>
#include <cstring>

#include "datagram/header.hpp"

namespace spiral::raw {

constexpr uint32_t kEthernetBytes = 14;
constexpr uint32_t kIpv4Bytes = 20;
constexpr uint32_t kUdpBytes = 8;
constexpr uint32_t kHeadersBytes = kEthernetBytes + kIpv4Bytes + kUdpBytes;  // 42
constexpr uint32_t kSeqOffset = kHeadersBytes + offsetof(datagram::DatagramHeader, seq);
constexpr uint32_t kFlagsOffset = kHeadersBytes + offsetof(datagram::DatagramHeader, flags);
constexpr uint32_t kParsedBytes = kHeadersBytes + datagram::kHeaderBytes;  // what the receiver reads: 66

// RFC 2544's benchmarking range (198.18.0.0/15): never routed, so a frame that reaches a kernel
// stack is dropped there instead of being answered or forwarded.
constexpr uint32_t kSourceIp = 0xC6120001;       // 198.18.0.1
constexpr uint32_t kDestinationIp = 0xC6120002;  // 198.18.0.2
constexpr uint16_t kFirstSourcePort = 49152;     // stream s sends from 49152 + s: RSS spreads streams
constexpr uint16_t kDestinationPort = 5201;

using Mac = std::array<uint8_t, 6>;

struct FrameSpec {
  Mac source{}, destination{};
  uint32_t payload_bytes = 0;  // UDP payload, sequence header included
  uint32_t run_id = 0;
  uint16_t stream = 0;         // the TX queue
};

inline uint32_t frame_bytes(uint32_t payload_bytes) { return payload_bytes + kHeadersBytes; }
inline uint16_t source_port(uint16_t stream) { return static_cast<uint16_t>(kFirstSourcePort + stream); }

// RFC 1071 checksum over an IPv4 header (checksum field included as stored).
uint16_t ipv4_checksum(const uint8_t* header);

// Writes the whole frame (frame_bytes(spec.payload_bytes) bytes) with sequence number 0.
void build_frame(uint8_t* frame, const FrameSpec& spec);

// The hot path's only write per frame.
inline void stamp(uint8_t* frame, uint64_t seq, uint16_t flags) {
  std::memcpy(frame + kSeqOffset, &seq, sizeof seq);
  std::memcpy(frame + kFlagsOffset, &flags, sizeof flags);
}

enum class FrameKind { ours, foreign, malformed };

struct ParsedFrame {
  FrameKind kind = FrameKind::foreign;
  uint16_t stream = 0;
  uint64_t seq = 0;
  bool measured = false;
};

// Classifies a received frame. `data` holds its first `contiguous` bytes (the first segment);
// `length` is the whole frame. Ours: UDP to kDestinationPort with our magic and run id and a
// stream below `streams`. Malformed: ours by its headers but of the wrong length.
// Inline and branch-light: the receiver runs it on every frame.
inline ParsedFrame parse_frame(const uint8_t* data, uint32_t contiguous, uint32_t length, uint32_t expected_length,
                               uint32_t run_id, uint16_t streams) {
  static_assert(std::endian::native == std::endian::little, "header constants are byte-swapped for x86/arm64");
  constexpr uint16_t kIpv4Wire = 0x0008;                                   // 0x0800 as it lies in memory
  constexpr uint16_t kPortWire = (kDestinationPort >> 8) | ((kDestinationPort & 0xff) << 8);
  ParsedFrame f;
  if (contiguous < kHeadersBytes) return f;  // too short to be ours
  uint16_t ethertype, port;
  std::memcpy(&ethertype, data + 12, 2);
  std::memcpy(&port, data + kEthernetBytes + kIpv4Bytes + 2, 2);
  const uint8_t* ip = data + kEthernetBytes;
  if (ethertype != kIpv4Wire || ip[0] != 0x45 || ip[9] != 17 || port != kPortWire) return f;
  if (length != expected_length || contiguous < kParsedBytes) {
    f.kind = FrameKind::malformed;
    return f;
  }
  const datagram::DatagramHeader h = datagram::read_header(data + kHeadersBytes);
  if (h.magic != datagram::kMagic || h.run_id != run_id || h.pair >= streams) return f;
  f.kind = FrameKind::ours;
  f.stream = h.pair;
  f.seq = h.seq;
  f.measured = h.flags & datagram::kFlagMeasured;
  return f;
}

}  // namespace spiral::raw
