#include "transports/roce/peer_info.hpp"

#include <arpa/inet.h>

#include "sys/errors.hpp"

namespace spiral::roce {

using nlohmann::json;

namespace {

std::string hex(const std::array<uint8_t, 16>& gid) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : gid) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::array<uint8_t, 16> gid_from_hex(const std::string& s) {
  if (s.size() != 32) throw RunFailure("roce: peer's gid is not 32 hex digits");
  std::array<uint8_t, 16> gid{};
  for (size_t i = 0; i < 16; ++i) {
    auto nibble = [&](char c) -> uint8_t {
      if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
      if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
      throw RunFailure("roce: peer's gid is not 32 hex digits");
    };
    gid[i] = static_cast<uint8_t>(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
  }
  return gid;
}

}  // namespace

json to_message(const PeerInfo& p) {
  return {{"type", "qp"},         {"queue", p.queue},
          {"verb", p.verb},       {"mode", p.mode},
          {"payload_bytes", p.payload_bytes},
          {"verify_payload", p.verify_payload},
          {"qp_num", p.qp_num},   {"psn", p.psn},
          {"gid", hex(p.gid)},    {"mtu_bytes", p.mtu_bytes},
          {"addr", p.addr},       {"rkey", p.rkey},
          {"slots", p.slots},     {"slot_stride", p.slot_stride},
          {"rx_window", p.rx_window}};
}

PeerInfo peer_from_message(const json& m) {
  try {
    PeerInfo p;
    m.at("queue").get_to(p.queue);
    m.at("verb").get_to(p.verb);
    m.at("mode").get_to(p.mode);
    m.at("payload_bytes").get_to(p.payload_bytes);
    m.at("verify_payload").get_to(p.verify_payload);
    m.at("qp_num").get_to(p.qp_num);
    m.at("psn").get_to(p.psn);
    p.gid = gid_from_hex(m.at("gid").get<std::string>());
    m.at("mtu_bytes").get_to(p.mtu_bytes);
    m.at("addr").get_to(p.addr);
    m.at("rkey").get_to(p.rkey);
    m.at("slots").get_to(p.slots);
    m.at("slot_stride").get_to(p.slot_stride);
    m.at("rx_window").get_to(p.rx_window);
    return p;
  } catch (const json::exception& e) {
    throw RunFailure(std::string("roce: malformed queue pair description from the peer: ") + e.what());
  }
}

std::string peer_mismatch(const PeerInfo& server, const PeerInfo& client) {
  auto differs = [](const char* what, const auto& s, const auto& c) -> std::string {
    if (s == c) return "";
    return std::string(what) + " is " + json(c).dump() + " on the client, " + json(s).dump() + " on the server";
  };
  for (auto diff : {differs("queue pair", server.queue, client.queue), differs("verb", server.verb, client.verb),
                    differs("mode", server.mode, client.mode),
                    differs("payload_bytes", server.payload_bytes, client.payload_bytes),
                    differs("verify_payload", server.verify_payload, client.verify_payload)})
    if (!diff.empty()) return diff;
  return "";
}

json fin_message(uint64_t messages) { return {{"type", "fin"}, {"messages", messages}}; }

std::string gid_text(const std::array<uint8_t, 16>& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, gid.data(), text, sizeof text);
  return text;
}

}  // namespace spiral::roce
