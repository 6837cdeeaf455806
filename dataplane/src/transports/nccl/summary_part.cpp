#include "transports/nccl/summary_part.hpp"

#include <cmath>

#include "transports/nccl/collective.hpp"

namespace spiral::nccl {

nlohmann::json summary_part(Collective op, int nranks, const std::vector<SizeRow>& rows, const TransportLog& log) {
  auto out_rows = nlohmann::json::array();
  for (size_t i = 0; i < rows.size() && i < kMaxSummaryRows; ++i) {
    const SizeRow& r = rows[i];
    out_rows.push_back({r.bytes, r.in_place ? 1 : 0, std::llround(r.time_us * 1e3), std::llround(r.algbw_gbps * 1e3),
                        std::llround(r.busbw_gbps * 1e3), r.wrong});
  }
  auto peers = nlohmann::json::array();
  for (size_t i = 0; i < log.connections.size() && i < kMaxSummaryPeers; ++i) {
    const Connection& c = log.connections[i];
    peers.push_back({c.from, c.to, transport_name(c), c.via});
  }
  return {{"op", std::string(info(op).name)}, {"ranks", nranks},    {"version", log.nccl_version},
          {"network", log.network},           {"rows", out_rows}, {"peers", peers}};
}

}  // namespace spiral::nccl
