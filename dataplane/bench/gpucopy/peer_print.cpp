#include "peer_print.hpp"

namespace spiral::gpucopy {

namespace {

std::string size_text(uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return std::to_string(b >> 30) + " GiB";
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return std::to_string(b >> 20) + " MiB";
  return std::to_string(b) + " B";
}

}  // namespace

void print_peers(std::FILE* out, const PeerResult& r) {
  for (const PeerPath& p : r.paths)
    std::fprintf(out, "# GPU %d <-> GPU %d: %s, peer access %s\n", p.a, p.b, p.path.c_str(), p.p2p ? "yes" : "no");
  for (const PeerMatrix& m : r.matrices) {
    std::fprintf(out, "# peer %s %s %s (%llu B), GB/s, rows src, columns dst%s\n", std::string(name(m.method)).c_str(),
                 std::string(name(m.mode)).c_str(), size_text(m.bytes).c_str(), static_cast<unsigned long long>(m.bytes),
                 m.mode == PeerMode::bi ? " (each direction while the other runs)" : "");
    std::fprintf(out, "# %5s", "src");
    for (int d : r.devices) std::fprintf(out, " %9d", d);
    std::fprintf(out, "\n");
    for (size_t s = 0; s < m.n; ++s) {
      std::fprintf(out, "  %5d", r.devices[s]);
      for (size_t d = 0; d < m.n; ++d) {
        if (m.at(s, d) < 0) std::fprintf(out, " %9s", "-");
        else std::fprintf(out, " %9.2f", m.at(s, d));
      }
      std::fprintf(out, "\n");
    }
  }
  for (const HostAggregate& h : r.host) {
    std::fprintf(out, "# host %s %s, pinned, GB/s: each GPU alone, all at once\n", std::string(name(h.direction)).c_str(),
                 size_text(h.bytes).c_str());
    for (size_t i = 0; i < h.alone_gbps.size(); ++i)
      std::fprintf(out, "  GPU %d %9.2f %9.2f\n", r.devices[i], h.alone_gbps[i], h.together_gbps[i]);
    std::fprintf(out, "  aggregate %9.2f\n", h.aggregate_gbps);
  }
  if (!r.note.empty()) std::fprintf(out, "# note: %s\n", r.note.c_str());
}

}  // namespace spiral::gpucopy
