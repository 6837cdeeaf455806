#include "transports/nccl/nccl_rank.hpp"

#include <unistd.h>

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
#include "transports/nccl/nccl_tests_json.hpp"
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

// This rank's process and GPU, for nccl-tests' "devices" (the fields left empty when unknown).
RankDevice own_device(const RankPlace& place) {
  RankDevice d;
  d.rank = place.rank;
  d.pid = static_cast<int>(::getpid());
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) d.host = host;
  d.device = place.device;
  try {
    d.pci_bus_id = pci_bus_id(place.device);
    d.name = device_name(place.device);
  } catch (const std::exception&) {
  }
  return d;
}

// Rank 0's nccl-tests JSON, written also when the run failed (as nccl-tests finalizes its file on
// an early error), with what was measured by then and the failure in "errors".
struct TestsJson {
  const RankRun& run;
  NcclTestsRun doc;
  explicit TestsJson(const RankRun& r) : run(r) {
    doc.spec = r.spec;
    doc.nranks = r.place.nranks;
    doc.args = own_command_line();
    doc.env = nccl_environment_now();
    doc.start_time = local_time_now();
  }
  std::string write(const std::string& error) {
    if (run.nccl_tests_json.empty()) return "";
    if (!error.empty()) doc.errors.push_back(error);
    doc.end_time = local_time_now();
    try {
      doc.nccl_version = library_version();
      return write_nccl_tests_json(run.nccl_tests_json, doc);
    } catch (const std::exception& e) {
      if (error.empty()) throw;  // the run's own failure matters more than the file's
      return "";
    }
  }
};

}  // namespace

RankOutcome run_rank(const RankRun& run) {
  RankOutcome out;
  out.log_path = run.log_dir + "/spiral-nccl-rank" + std::to_string(run.place.rank) + ".log";
  std::remove(out.log_path.c_str());
  preflight(run.spec);  // before the bootstrap: no rank waits on one that cannot run
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
    TestsJson tests_json(run);
    std::vector<std::vector<SizeRow>> per_rank(1);
    try {
      per_rank[0] = run_sweep(run.spec, run.place, id);
    } catch (const std::exception& e) {
      if (root) root->fail_all(std::string("rank 0 failed: ") + e.what());
      tests_json.write(e.what());
      throw;
    }
    out.transports = read_own_log(out.log_path);
    std::vector<GpuLinks> gpus{own_gpu_links(run.place.device)};
    std::vector<RankDevice>& devices = tests_json.doc.devices;
    devices.push_back(own_device(run.place));
    try {
      if (root) {
        for (const auto& report : root->gather_reports(run.report_timeout)) {
          if (report.contains("error")) throw RunFailure("NCCL: " + report["error"].get<std::string>());
          per_rank.push_back(rows_from_json(report.at("rows")));
          merge(out.transports, transport_log_from_json(report.at("transports")));
          gpus.push_back(gpu_links_from_json(report.value("gpu", nlohmann::json())));
          devices.push_back(rank_device_from_json(report.value("device", nlohmann::json())));
        }
      }
      out.rows = merge_ranks(per_rank, run.spec);
    } catch (const std::exception& e) {
      tests_json.write(e.what());  // no results: rank 0's alone are not the cell's (the ranks' mean)
      throw;
    }
    classify_p2p(out.transports, gpus);
    tests_json.doc.rows = out.rows;
    tests_json.doc.per_rank = std::move(per_rank);
    if (run.network.require_rdma) out.invalid_reason = rdma_violation(out.transports, run.place.nranks);
    out.nccl_tests_json = tests_json.write(out.invalid_reason);
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
                         {"gpu", to_json(own_gpu_links(run.place.device))},
                         {"device", to_json(own_device(run.place))}});
  }
  out.nccl_version = library_version();
  out.check_passed = check_passed(out.rows);
  return out;
}

}  // namespace spiral::nccl
