#include "transports/nccl/nccl_rank.hpp"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "gpu/nvml_sampler.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"
#include "transports/nccl/bootstrap.hpp"
#include "transports/nccl/gpu_links.hpp"
#include "transports/nccl/nccl_engine.hpp"
#include "transports/nccl/sweep_rows.hpp"

namespace spiral::nccl {

namespace {

TransportLog read_own_log(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  if (in) text << in.rdbuf();
  return parse_transport_log(text.str());
}

// What NVML says of this rank's GPU, for rank 0 to tell NVLink from PCIe; unknown unless NVML
// names exactly this GPU (its fallback to device 0 would describe another GPU of the node).
GpuLinks own_gpu_links(int device) {
  GpuLinks g;
  const std::string bus = pci_bus_id(device);
  const gpu::NvmlSampler nvml(bus);
  if (nvml.status() != "ok") return g;
  const auto remotes = nvml.nvlink_remotes();
  if (!remotes) return g;
  g.known = true;
  g.pci_bus_id = normalise_bus_id(bus);
  for (const auto& far : *remotes) g.nvlink_remotes.push_back(normalise_bus_id(far));
  return g;
}

}  // namespace

RankOutcome run_rank(const RankRun& run) {
  RankOutcome out;
  out.log_path = run.log_dir + "/spiral-nccl-rank" + std::to_string(run.place.rank) + ".log";
  std::remove(out.log_path.c_str());
  apply_environment(nccl_environment(run.network, out.log_path));
  const BootstrapSpec boot{run.cell, run.place.rank, run.place.nranks, run.root_host, run.port, run.bootstrap_timeout};

  if (run.place.rank == 0) {
    std::optional<RootSession> root;
    const UniqueId id = new_unique_id();
    if (run.place.nranks > 1) {
      Fd listener = tcp_listen(ipv4_address(run.bind_address, run.port));
      if (run.on_listening) run.on_listening();
      root.emplace(RootSession::serve(listener.get(), boot, id));
    } else if (run.on_listening) {
      run.on_listening();
    }
    std::vector<std::vector<SizeRow>> per_rank(1);
    try {
      per_rank[0] = run_sweep(run.spec, run.place, id);
    } catch (const std::exception& e) {
      if (root) root->fail_all(std::string("rank 0 failed: ") + e.what());
      throw;
    }
    out.transports = read_own_log(out.log_path);
    std::vector<GpuLinks> gpus{own_gpu_links(run.place.device)};
    if (root) {
      for (const auto& report : root->gather_reports(run.report_timeout)) {
        if (report.contains("error")) throw RunFailure("NCCL: " + report["error"].get<std::string>());
        per_rank.push_back(rows_from_json(report.at("rows")));
        merge(out.transports, transport_log_from_json(report.at("transports")));
        gpus.push_back(gpu_links_from_json(report.value("gpu", nlohmann::json())));
      }
    }
    classify_p2p(out.transports, gpus);
    out.rows = merge_ranks(per_rank, run.spec);
    if (run.network.require_rdma) out.invalid_reason = rdma_violation(out.transports, run.place.nranks);
  } else {
    RankSession session = RankSession::join(boot);
    try {
      out.rows = run_sweep(run.spec, run.place, session.unique_id());
    } catch (const std::exception& e) {
      session.send_report({{"error", "rank " + std::to_string(run.place.rank) + ": " + e.what()}});
      throw;
    }
    out.transports = read_own_log(out.log_path);
    session.send_report({{"rows", to_json(out.rows)}, {"transports", to_json(out.transports)},
                         {"gpu", to_json(own_gpu_links(run.place.device))}});
  }
  out.nccl_version = library_version();
  out.check_passed = check_passed(out.rows);
  return out;
}

}  // namespace spiral::nccl
