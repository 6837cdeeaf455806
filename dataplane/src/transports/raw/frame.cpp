#include "transports/raw/frame.hpp"

namespace spiral::raw {

namespace {

void put16(uint8_t* p, uint16_t v) {  // network byte order
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) {
  put16(p, static_cast<uint16_t>(v >> 16));
  put16(p + 2, static_cast<uint16_t>(v));
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kProtocolUdp = 17;

}  // namespace

uint16_t ipv4_checksum(const uint8_t* header) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < kIpv4Bytes; i += 2) sum += get16(header + i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

void build_frame(uint8_t* frame, const FrameSpec& spec) {
  uint8_t* eth = frame;
  std::memcpy(eth, spec.destination.data(), 6);
  std::memcpy(eth + 6, spec.source.data(), 6);
  put16(eth + 12, kEtherTypeIpv4);

  uint8_t* ip = eth + kEthernetBytes;
  std::memset(ip, 0, kIpv4Bytes);
  ip[0] = 0x45;                                                         // version 4, 5 words
  put16(ip + 2, static_cast<uint16_t>(kIpv4Bytes + kUdpBytes + spec.payload_bytes));
  put16(ip + 6, 0x4000);                                                // don't fragment
  ip[8] = 64;                                                           // TTL
  ip[9] = kProtocolUdp;
  put32(ip + 12, kSourceIp);
  put32(ip + 16, kDestinationIp);
  put16(ip + 10, ipv4_checksum(ip));  // the same for every frame of the stream: no per-frame field changes

  uint8_t* udp = ip + kIpv4Bytes;
  put16(udp, source_port(spec.stream));
  put16(udp + 2, kDestinationPort);
  put16(udp + 4, static_cast<uint16_t>(kUdpBytes + spec.payload_bytes));
  put16(udp + 6, 0);  // no UDP checksum (allowed on IPv4): the payload changes per frame

  uint8_t* payload = udp + kUdpBytes;
  datagram::write_header(payload, datagram::DatagramHeader{datagram::kMagic, spec.run_id, 0, spec.stream, 0, 0});
  for (uint32_t i = datagram::kHeaderBytes; i < spec.payload_bytes; ++i) payload[i] = static_cast<uint8_t>(i);
}

}  // namespace spiral::raw
