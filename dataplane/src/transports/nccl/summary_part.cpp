#include "transports/nccl/summary_part.hpp"

#include <cmath>

#include "transports/nccl/collective.hpp"

namespace spiral::nccl {

namespace {

// x per mille off the reference: 1003 us against 1000 us is 3
long long per_mille_off(double x, double reference) {
  return reference > 0 ? std::llround(1000.0 * (x / reference - 1.0)) : 0;
}

}  // namespace

nlohmann::json summary_part(Collective op, int nranks, const std::vector<SizeRow>& rows, const TransportLog& log) {
  auto out_rows = nlohmann::json::array();
  auto iter = nlohmann::json::array();
  for (size_t i = 0; i < rows.size() && i < kMaxSummaryRows; ++i) {
    const SizeRow& r = rows[i];
    out_rows.push_back({r.bytes, r.in_place ? 1 : 0, std::llround(r.time_us * 1e3), std::llround(r.algbw_gbps * 1e3),
                        std::llround(r.busbw_gbps * 1e3), r.wrong});
    iter.push_back({per_mille_off(r.p50_us, r.time_us), per_mille_off(r.p99_us, r.time_us), r.slowest_rank,
                    per_mille_off(r.slowest_time_us, r.time_us)});
  }
  auto peers = nlohmann::json::array();
  for (size_t i = 0; i < log.connections.size() && i < kMaxSummaryPeers; ++i) {
    const Connection& c = log.connections[i];
    peers.push_back({c.from, c.to, transport_name(c), c.via});
  }
  return {{"op", std::string(info(op).name)}, {"ranks", nranks}, {"version", log.nccl_version},
          {"network", log.network}, {"rows", out_rows}, {"iter", iter}, {"peers", peers}};
}

nlohmann::json fit_summary_part(nlohmann::json part, size_t budget) {
  if (part.dump().size() > budget) part.erase("iter");
  while (part["rows"].size() > 1 && part.dump().size() > budget) part["rows"].erase(part["rows"].size() - 1);
  return part;
}

}  // namespace spiral::nccl
