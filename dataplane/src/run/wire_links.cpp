#include "run/wire_links.hpp"

#include <arpa/inet.h>

#include "sys/errors.hpp"
#include "sys/ethtool.hpp"
#include "sys/socket.hpp"

namespace spiral {

namespace {
std::string dotted(const in_addr& a) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}
}  // namespace

std::vector<LinkEnd> client_links(const Cell& cell, uint16_t port, Clock::time_point deadline) {
  std::vector<LinkEnd> links;
  const size_t n = link_count(cell);
  for (size_t k = 0; k < n; ++k) {
    const std::string& host = cell.server_addresses.empty() ? cell.server_address : cell.server_addresses[k];
    const sockaddr_in to = resolve_ipv4_until(host, port, deadline);
    LinkEnd end{dotted(to.sin_addr), k < cell.netdevs.size() ? cell.netdevs[k] : interface_toward(to)};
    links.push_back(std::move(end));
  }
  return links;
}

std::vector<LinkEnd> server_links(const Cell& cell, const nlohmann::json& hello) {
  std::vector<LinkEnd> links;
  if (!hello.contains("links") || !hello["links"].is_array()) return links;  // an older client
  size_t k = 0;
  for (const auto& a : hello["links"]) {
    LinkEnd end{a.is_string() ? a.get<std::string>() : "", ""};
    in_addr address{};
    if (k < cell.netdevs.size()) end.netdev = cell.netdevs[k];
    else if (inet_pton(AF_INET, end.address.c_str(), &address) == 1) end.netdev = interface_of(address);
    links.push_back(std::move(end));
    ++k;
  }
  return links;
}

nlohmann::json links_to_json(const std::vector<LinkEnd>& links) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& l : links) j.push_back(l.address);
  return j;
}

std::vector<PhySample> sample_links(const std::vector<LinkEnd>& links) {
  std::vector<PhySample> samples;
  for (const auto& l : links) {
    if (l.netdev.empty()) {
      samples.push_back({});
      samples.back().note = "no interface of this host carries " + l.address;
      continue;
    }
    std::string why;
    auto stats = read_ethtool_stats(l.netdev, &why);
    samples.push_back(phy_sample(stats, why));
  }
  return samples;
}

}  // namespace spiral
