// spiral-gpucopy-bench: host<->device copy bandwidth per GPU (the gpucopy bench kind's engines,
// transports/gpucopy), with each GPU's NUMA node and PCIe link; then the GPU-to-GPU matrices and
// all GPUs with the host at once (the sweep's largest size). Prints tables; --json writes one
// JSON object per GPU ({"gpu": ..., "rows": [...]}) and one {"peer": ...} (peer_summary.hpp).
//
//   spiral-gpucopy-bench -b 1K -e 256M -f 4 -n 20 --directions h2d,d2h,d2d --memory pinned,pageable
//   spiral-gpucopy-bench --parts peer --peer-methods ce --peer-modes uni --peer-bytes 8M,1G
//   spiral-gpucopy-bench --parts local --local-tests sm_read,sm_write --latency device,host --local-repeats 5
//
// Exit: 0 measured, 2 bad options, 1 run failure, 77 no GPU.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "sys/errors.hpp"
#include "gpu/cuda/device.hpp"
#include "peer_print.hpp"
#include "transports/gpucopy/cuda/copy_engine.hpp"
#include "transports/gpucopy/cuda/local_engine.hpp"
#include "transports/gpucopy/cuda/peer_engine.hpp"
#include "transports/gpucopy/peer_summary.hpp"

using namespace spiral;
using namespace spiral::gpucopy;

int main(int argc, char** argv) {
  CLI::App app{"spiral-gpucopy-bench: H2D, D2H and D2D copy bandwidth per GPU, GPU to GPU, all GPUs with the host"};
  CopySpec spec;
  std::string min = "1K", max = "256M", json_path;
  std::vector<std::string> directions{"h2d", "d2h", "d2d"}, memories{"pinned", "pageable"};
  app.add_option("-b,--minbytes", min, "smallest copy (1K, 8M, ...)");
  app.add_option("-e,--maxbytes", max, "largest copy");
  app.add_option("-f,--stepfactor", spec.sweep.factor, "size factor between steps")->check(CLI::Range(2, 1024));
  app.add_option("-n,--iters", spec.iterations, "timed copies per size")->check(CLI::PositiveNumber);
  app.add_option("-w,--warmup_iters", spec.warmup_iterations, "untimed copies per size first")->check(CLI::NonNegativeNumber);
  app.add_option("--directions", directions, "h2d, d2h, d2d")->delimiter(',');
  app.add_option("--memory", memories, "host memory: pinned, pageable")->delimiter(',');
  app.add_option("--devices", spec.devices, "CUDA devices (default: every visible GPU)")->delimiter(',');
  std::vector<std::string> parts{"copies", "peer", "host", "local"}, methods{"ce", "sm"}, modes{"uni", "bi"},
      peer_bytes{"256M"}, aggregate{"h2d", "d2h"};
  app.add_option("--parts", parts, "copies (per GPU), peer (between GPUs), host (all GPUs at once), local (each GPU alone)")->delimiter(',');
  app.add_option("--peer-methods", methods, "ce (copy engines), sm (copy kernel)")->delimiter(',');
  app.add_option("--peer-modes", modes, "uni, bi")->delimiter(',');
  app.add_option("--peer-bytes", peer_bytes, "sizes of the GPU-to-GPU copies")->delimiter(',');
  app.add_option("--aggregate", aggregate, "host directions of the all-GPU run: h2d, d2h")->delimiter(',');
  std::vector<std::string> local_tests, latency;
  std::string local_bytes = "512M";
  app.add_option("--local-tests", local_tests, "each GPU alone (part local): sm_read, sm_write")->delimiter(',');
  app.add_option("--latency", latency, "pointer-chase latency (part local): device, host, peer")->delimiter(',');
  app.add_option("--local-bytes", local_bytes, "bytes per SM read or write pass");
  app.add_option("--local-repeats", spec.local.repeats, "local figures measured this many times (median, CV)")->check(CLI::Range(1, 100));
  app.add_option("--json", json_path, "also write one JSON object per GPU here");
  CLI11_PARSE(app, argc, argv);
  try {
    spec.sweep.min_bytes = parse_size(min);
    spec.sweep.max_bytes = parse_size(max);
    spec.directions.clear();
    for (const auto& d : directions) spec.directions.push_back(direction_named(d));
    spec.memories.clear();
    for (const auto& m : memories) spec.memories.push_back(host_memory_named(m));
    spec.peer.methods.clear();
    for (const auto& m : methods) spec.peer.methods.push_back(peer_method_named(m));
    spec.peer.modes.clear();
    for (const auto& m : modes) spec.peer.modes.push_back(peer_mode_named(m));
    spec.peer.bytes.clear();
    for (const auto& b : peer_bytes) spec.peer.bytes.push_back(parse_size(b));
    spec.peer.aggregate.clear();
    for (const auto& d : aggregate) spec.peer.aggregate.push_back(host_direction_named(d));
    for (const auto& t : local_tests) spec.local.tests.push_back(local_test_named(t));
    for (const auto& t : latency) spec.local.latency.push_back(latency_target_named(t));
    spec.local.bytes = parse_size(local_bytes) / 16 * 16;
    auto wants = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
    sizes(spec.sweep);  // refuses a sweep that cannot run before any GPU work
    std::string why;
    if (!gpu::probe_device(why)) {
      std::fprintf(stderr, "spiral-gpucopy-bench: no usable GPU: %s\n", why.c_str());
      return 77;
    }
    std::ofstream json;
    if (!json_path.empty()) json.open(json_path);
    const std::vector<int> devices = copy_devices(spec);
    for (int device : wants("copies") ? devices : std::vector<int>{}) {
      const GpuCopyResult r = measure_gpu(spec, device);
      const GpuPlacement& g = r.gpu;
      std::printf("# GPU %d: %s, PCI %s, NUMA node %d, PCIe gen %d x%d (max gen %d x%d)\n", g.device, g.name.c_str(),
                  g.pci_bus_id.c_str(), g.numa_node, g.pcie_generation, g.pcie_width, g.pcie_max_generation,
                  g.pcie_max_width);
      std::printf("# %9s %9s %12s %10s %9s\n", "direction", "memory", "size(B)", "time(us)", "GB/s");
      for (const auto& row : r.rows)
        std::printf("  %9s %9s %12llu %10.2f %9.2f\n", row.direction.c_str(), row.memory.c_str(),
                    static_cast<unsigned long long>(row.bytes), row.time_us, row.gbps);
      if (json) {
        auto rows = nlohmann::json::array();
        for (const auto& row : r.rows) rows.push_back(to_json(row));
        json << nlohmann::json{{"gpu", to_json(g)}, {"rows", rows}}.dump() << "\n";
      }
    }
    if (wants("peer") || wants("host")) {
      if (!wants("peer")) spec.peer.methods.clear();
      if (!wants("host")) spec.peer.aggregate.clear();
      PeerResult peers = measure_peers(spec, devices);
      peers.host = measure_host_aggregate(spec, devices, sizes(spec.sweep).back());
      print_peers(stdout, peers);
      nlohmann::json part;
      add_peer_part(peers, part);
      if (json) json << nlohmann::json{{"peer", part}}.dump() << "\n";
    }
    if (wants("local") && (!spec.local.tests.empty() || !spec.local.latency.empty())) {
      const LocalResult local = measure_local(spec, devices);
      std::printf("# local: %d repeats; SM passes of %llu B\n# %6s %16s %5s %12s %8s\n", spec.local.repeats,
                  static_cast<unsigned long long>(spec.local.bytes), "device", "test", "peer", "median", "cv(%)");
      for (const auto& f : local.figures)
        std::printf("  %6d %16s %5d %12.2f %8.2f  %s\n", f.device, f.test.c_str(), f.peer, f.value, f.cv_percent,
                    f.latency() ? "ns" : "GB/s");
      if (!local.note.empty()) std::printf("# %s\n", local.note.c_str());
      if (json) json << nlohmann::json{{"local", local_part(local.figures)}, {"note", local.note}}.dump() << "\n";
    }
    return 0;
  } catch (const BadInput& e) {
    std::fprintf(stderr, "spiral-gpucopy-bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiral-gpucopy-bench: %s\n", e.what());
    return 1;
  }
}
