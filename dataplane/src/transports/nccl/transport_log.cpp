#include "transports/nccl/transport_log.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "sys/errors.hpp"

namespace spiral::nccl {

namespace {

Link classify(const std::string& via) {
  auto starts = [&](std::string_view prefix) { return via.compare(0, prefix.size(), prefix) == 0; };
  if (starts("P2P")) return Link::p2p;
  if (starts("SHM")) return Link::shm;
  if (starts("NET/IB")) return Link::net_ib;  // NCCL's verbs transport, also "NET/IBext_v8" of the plugin
  if (starts("NET/Socket")) return Link::net_socket;
  if (starts("NET/")) return Link::net_other;
  if (starts("COLLNET")) return Link::collnet;
  return Link::other;
}

// "NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" (the "/0" and the
// direction are absent in some versions and for P2P/SHM; "P2P/direct pointer" has a space).
const std::regex kChannel(R"(NCCL INFO Channel \d+(?:/\d+)? : (\d+)\[[0-9a-fA-Fx]+\] -> (\d+)\[[0-9a-fA-Fx]+\])"
                          R"((?: \[(?:send|receive)\])? via (\S+(?: pointer)?))");
const std::regex kVersion(R"(NCCL INFO NCCL version (\S+))");
const std::regex kNetwork(R"(NCCL INFO Using network (.+?)\s*$)");
const std::regex kNetDevices(R"(NCCL INFO NET/(?:IB|Socket) ?: Using (.*)$)");  // "[n]name" entries; the OOB one has no [n]
const std::regex kDevice(R"(\[\d+\](\S+))");

}  // namespace

std::string_view name(Link link) {
  switch (link) {
    case Link::p2p: return "P2P";
    case Link::shm: return "SHM";
    case Link::net_ib: return "NET/IB";
    case Link::net_socket: return "NET/Socket";
    case Link::net_other: return "NET/other";
    case Link::collnet: return "CollNet";
    case Link::other: break;
  }
  return "other";
}

namespace {

std::string_view path_name(P2pPath p) {
  switch (p) {
    case P2pPath::nvlink: return "NVLink";
    case P2pPath::pcie: return "PCIe";
    case P2pPath::unknown: break;
  }
  return "";
}

P2pPath path_named(std::string_view s) {
  return s == "NVLink" ? P2pPath::nvlink : s == "PCIe" ? P2pPath::pcie : P2pPath::unknown;
}

}  // namespace

std::string transport_name(const Connection& c) {
  std::string out(name(c.link));
  if (c.link == Link::p2p && c.path != P2pPath::unknown) {
    out += '/';  // appended piecewise: "/" + string trips g++ 12's -Wrestrict at -O3
    out += path_name(c.path);
  }
  return out;
}

TransportLog parse_transport_log(std::string_view text) {
  TransportLog log;
  std::map<std::tuple<int, int, Link>, size_t> seen;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (line.find("NCCL INFO") == std::string::npos) continue;
    if (std::regex_search(line, m, kChannel)) {
      const int from = std::stoi(m[1]), to = std::stoi(m[2]);
      const std::string via = m[3];
      const Link link = classify(via);
      auto key = std::make_tuple(from, to, link);
      auto it = seen.find(key);
      if (it == seen.end()) {
        it = seen.emplace(key, log.connections.size()).first;
        log.connections.push_back({from, to, link, via, via.find("GDRDMA") != std::string::npos, 0});
      }
      ++log.connections[it->second].channels;
    } else if (std::regex_search(line, m, kVersion)) {
      if (log.nccl_version.empty()) log.nccl_version = m[1];
    } else if (std::regex_search(line, m, kNetwork)) {
      log.network = m[1];
    } else if (std::regex_search(line, m, kNetDevices) && log.net_devices.empty()) {
      const std::string devices = m[1];
      for (std::sregex_iterator d(devices.begin(), devices.end(), kDevice), end; d != end; ++d)
        log.net_devices.push_back((*d)[1]);
    }
  }
  return log;
}

nlohmann::json to_json(const TransportLog& log) {
  auto connections = nlohmann::json::array();
  for (const auto& c : log.connections)
    connections.push_back({{"from", c.from}, {"to", c.to}, {"link", name(c.link)}, {"via", c.via},
                           {"gpu_direct", c.gpu_direct}, {"channels", c.channels}, {"path", path_name(c.path)}});
  return {{"nccl_version", log.nccl_version}, {"network", log.network}, {"net_devices", log.net_devices},
          {"connections", connections}};
}

TransportLog transport_log_from_json(const nlohmann::json& j) {
  TransportLog log;
  try {
    log.nccl_version = j.at("nccl_version").get<std::string>();
    log.network = j.at("network").get<std::string>();
    log.net_devices = j.at("net_devices").get<std::vector<std::string>>();
    for (const auto& c : j.at("connections")) {
      const std::string via = c.at("via").get<std::string>();
      log.connections.push_back({c.at("from").get<int>(), c.at("to").get<int>(), classify(via), via,
                                 c.at("gpu_direct").get<bool>(), c.at("channels").get<int>(),
                                 path_named(c.value("path", ""))});
    }
  } catch (const nlohmann::json::exception& e) {
    throw RunFailure(std::string("NCCL report: malformed transports: ") + e.what());
  }
  return log;
}

void merge(TransportLog& into, const TransportLog& other) {
  if (into.nccl_version.empty()) into.nccl_version = other.nccl_version;
  if (into.network.empty()) into.network = other.network;
  if (into.net_devices.empty()) into.net_devices = other.net_devices;
  for (const auto& c : other.connections) {
    auto same = [&](const Connection& o) { return o.from == c.from && o.to == c.to && o.link == c.link; };
    auto it = std::find_if(into.connections.begin(), into.connections.end(), same);
    if (it == into.connections.end()) into.connections.push_back(c);
    else it->channels += c.channels;
  }
}

std::vector<Connection> TransportLog::for_rank(int rank) const {
  std::vector<Connection> out;
  for (const auto& c : connections) {
    if (c.from != rank && c.to != rank) continue;
    const int peer = c.from == rank ? c.to : c.from;
    bool merged = false;
    for (auto& o : out) {
      const int opeer = o.from == rank ? o.to : o.from;
      if (opeer == peer && o.link == c.link) {
        o.channels += c.channels;
        merged = true;
      }
    }
    if (!merged) out.push_back(c);
  }
  return out;
}

bool TransportLog::uses(Link link) const {
  for (const auto& c : connections)
    if (c.link == link) return true;
  return false;
}

std::string rdma_violation(const TransportLog& log, int nranks) {
  if (nranks > 1 && log.connections.empty())
    return "asked for RDMA, but NCCL's log names no connection between ranks, so nothing confirms RDMA "
           "(was NCCL_DEBUG overridden?)";
  for (const auto& c : log.connections)
    if (c.link == Link::net_socket)
      return "asked for RDMA, but NCCL connected rank " + std::to_string(c.from) + " -> rank " + std::to_string(c.to) +
             " over " + c.via + " (TCP sockets); check the RDMA devices given to the pod (NCCL_IB_HCA)";
  const bool needs_network = log.uses(Link::net_ib) || log.uses(Link::net_other) || log.uses(Link::net_socket);
  if (needs_network && log.network == "Socket")
    return "asked for RDMA, but NCCL chose its Socket network (\"Using network Socket\")";
  return "";
}

}  // namespace spiral::nccl
