#include "transports/gpucopy/peer_summary.hpp"

#include <cmath>

namespace spiral::gpucopy {

namespace {

nlohmann::json mbps_list(const std::vector<double>& gbps) {
  auto out = nlohmann::json::array();
  for (double g : gbps) out.push_back(g >= 0 ? std::llround(g * 1e3) : -1);
  return out;
}

}  // namespace

void add_peer_part(const PeerResult& r, nlohmann::json& part) {
  part["devices"] = r.devices;
  auto links = nlohmann::json::array();
  for (const PeerPath& p : r.paths) links.push_back({p.a, p.b, p.path, p.p2p ? 1 : 0});
  part["links"] = links;
  auto peer = nlohmann::json::array();
  for (const PeerMatrix& m : r.matrices) peer.push_back({std::string(name(m.method)), std::string(name(m.mode)), m.bytes, rows_mbps(m)});
  part["peer"] = peer;
  auto host = nlohmann::json::array();
  for (const HostAggregate& h : r.host)
    host.push_back({std::string(name(h.direction)), h.bytes, mbps_list(h.alone_gbps), mbps_list(h.together_gbps),
                    std::llround(h.aggregate_gbps * 1e3)});
  part["host"] = host;
  if (!r.note.empty()) part["peer_note"] = r.note;
}

void fit_summary(nlohmann::json& part, size_t max_bytes) {
  size_t rows = 0, peer = 0;
  constexpr size_t kTrimmedKey = 40;  // ,"trimmed":{"rows":NNN,"peer":NN}
  auto fits = [&] { return part.dump().size() + (rows + peer > 0 ? kTrimmedKey : 0) <= max_bytes; };
  auto drop_last = [&](const char* key, size_t& count, auto keep) {
    if (!part.contains(key)) return;
    auto& list = part[key];
    while (!fits() && !list.empty() && keep(list.back())) {
      list.erase(list.size() - 1);
      ++count;
    }
  };
  drop_last("rows", rows, [](const nlohmann::json&) { return true; });
  if (part.contains("peer") && !part["peer"].empty()) {
    const auto first_size = part["peer"][0][2];
    // later sizes go first, from the end; matrices of the first size only when still too long
    auto& list = part["peer"];
    for (size_t i = list.size(); i-- > 0 && !fits();)
      if (list[i][2] != first_size) {
        list.erase(i);
        ++peer;
      }
    drop_last("peer", peer, [](const nlohmann::json&) { return true; });
  }
  if (rows + peer > 0) part["trimmed"] = {{"rows", rows}, {"peer", peer}};
}

}  // namespace spiral::gpucopy
