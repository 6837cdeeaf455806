#pragma once
// The peer and host-aggregate parts of the "gpucopy" summary and record (beside "gpus" and
// "rows", summary_part.hpp), compact so that the matrices of 8 GPUs fit the 4 KiB termination
// message (the operator's reader: pkg/benchkind/gpucopy_peers_summary.go):
//   "links": [[a, b, "NV18", p2p 0/1], ...]                     one per unordered pair
//   "peer":  [["ce", "uni", bytes, [[-1, mbps, ...], ...]], ...] rows src, columns dst, in
//            "devices" order; -1 not measured
//   "host":  [["h2d", bytes, [alone mbps...], [together mbps...], aggregate mbps], ...]
//   "devices": [0, 1, ...]    "peer_note": why pairs were not measured (only when some were not)
#include <cstddef>
#include <nlohmann/json.hpp>

#include "transports/gpucopy/peer_spec.hpp"

namespace spiral::gpucopy {

// Adds the keys above to `part`.
void add_peer_part(const PeerResult& r, nlohmann::json& part);

// Trims `part` until its dump fits `max_bytes`: the sweep's rows go first (the record keeps
// them), then the matrices of every size but the first, then matrices from the last; what went
// is counted in "trimmed": {"rows": n, "peer": m}.
void fit_summary(nlohmann::json& part, size_t max_bytes);

}  // namespace spiral::gpucopy
