#include "transports/gpucopy/cell_run.hpp"

#include "transports/gpucopy/cuda/copy_engine.hpp"
#include "transports/gpucopy/cuda/local_engine.hpp"
#include "transports/gpucopy/cuda/peer_engine.hpp"
#include "transports/gpucopy/gpucopy_options.hpp"
#include "transports/gpucopy/peer_summary.hpp"
#include "transports/gpucopy/summary_part.hpp"

namespace spiral::gpucopy {

nlohmann::json run_copy_cell(const Cell& c, uint32_t, void (*listening)(const Cell& c)) {
  if (listening) listening(c);  // nobody connects: ready at once
  const CopySpec& spec = copy_options(c);
  std::vector<GpuPlacement> gpus;
  std::vector<CopyRow> rows;
  const std::vector<int> devices = copy_devices(spec);
  for (int device : devices) {
    GpuCopyResult r = measure_gpu(spec, device);
    gpus.push_back(r.gpu);
    rows.insert(rows.end(), r.rows.begin(), r.rows.end());
  }
  PeerResult peers = measure_peers(spec, devices);
  peers.host = measure_host_aggregate(spec, devices, sizes(spec.sweep).back());
  // the whole part: the record keeps it; summary_fields trims its copy to the summary's budget
  nlohmann::json part = summary_part(gpus, rows);
  add_peer_part(peers, part);
  if (!spec.local.tests.empty() || !spec.local.latency.empty()) {
    const LocalResult local = measure_local(spec, devices);
    part["local"] = local_part(local.figures);
    if (!local.note.empty()) part["local_note"] = local.note;
  }
  return {{"state", "Valid"}, {"reason", ""}, {"figures", part}};
}

}  // namespace spiral::gpucopy
