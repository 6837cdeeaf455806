#include "transports/gpucopy/peer_spec.hpp"

#include <cmath>

#include "sys/errors.hpp"

namespace spiral::gpucopy {

std::string_view name(PeerMethod m) { return m == PeerMethod::ce ? "ce" : "sm"; }
std::string_view name(PeerMode m) { return m == PeerMode::uni ? "uni" : "bi"; }
std::string_view name(HostDirection d) { return d == HostDirection::h2d ? "h2d" : "d2h"; }

PeerMethod peer_method_named(std::string_view n) {
  for (PeerMethod m : {PeerMethod::ce, PeerMethod::sm})
    if (name(m) == n) return m;
  throw BadInput("unknown peer copy method \"" + std::string(n) + "\" (known: ce, sm, or none alone)");
}

PeerMode peer_mode_named(std::string_view n) {
  for (PeerMode m : {PeerMode::uni, PeerMode::bi})
    if (name(m) == n) return m;
  throw BadInput("unknown peer copy mode \"" + std::string(n) + "\" (known: uni, bi)");
}

HostDirection host_direction_named(std::string_view n) {
  for (HostDirection d : {HostDirection::h2d, HostDirection::d2h})
    if (name(d) == n) return d;
  throw BadInput("unknown aggregate direction \"" + std::string(n) + "\" (known: h2d, d2h, or none alone)");
}

PeerMatrix empty_matrix(PeerMethod m, PeerMode mode, uint64_t bytes, size_t n) {
  return {m, mode, bytes, n, std::vector<double>(n * n, -1.0)};
}

std::vector<std::pair<size_t, size_t>> ordered_pairs(size_t n) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t s = 0; s < n; ++s)
    for (size_t d = 0; d < n; ++d)
      if (s != d) out.emplace_back(s, d);
  return out;
}

std::vector<std::vector<int64_t>> rows_mbps(const PeerMatrix& m) {
  std::vector<std::vector<int64_t>> rows(m.n, std::vector<int64_t>(m.n, -1));
  for (size_t s = 0; s < m.n; ++s)
    for (size_t d = 0; d < m.n; ++d)
      if (const double g = m.at(s, d); g >= 0) rows[s][d] = std::llround(g * 1e3);
  return rows;
}

}  // namespace spiral::gpucopy
