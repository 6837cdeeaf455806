#include "transports/gpucopy/gpucopy_options.hpp"

#include <algorithm>
#include <any>

#include "sys/errors.hpp"

namespace spiral::gpucopy {

const std::set<std::string> kCopyKeys = {"directions", "host_memory", "min_bytes",        "max_bytes",
                                         "step_factor", "iterations", "warmup_iterations", "devices",
                                         "peer_methods", "peer_modes", "peer_bytes", "aggregate",
                                         "local_tests", "latency", "local_bytes", "local_repeats"};

namespace {

template <typename T, typename F>
std::vector<T> list_of(const ObjectReader& r, const std::string& key, const std::string& fallback, F named) {
  std::vector<T> out;
  const std::string text = r.text(key, 64, fallback);
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) {
      try {
        out.push_back(named(text.substr(start, comma - start)));
      } catch (const BadInput& e) {
        refuse_key(key, e.what());
      }
    }
    start = comma + 1;
  }
  if (out.empty()) refuse_key(key, "must name at least one");
  return out;
}

// A list that may also be "none" alone (nothing of that part is measured).
template <typename T, typename F>
std::vector<T> list_or_none(const ObjectReader& r, const std::string& key, const std::string& fallback, F named) {
  if (r.text(key, 64, fallback) == "none") return {};
  return list_of<T>(r, key, fallback, named);
}

}  // namespace

CopySpec parse_copy_options(const ObjectReader& r) {
  CopySpec s;
  s.directions = list_of<Direction>(r, "directions", "h2d,d2h,d2d", [](const std::string& n) { return direction_named(n); });
  s.memories = list_of<HostMemory>(r, "host_memory", "pinned,pageable", [](const std::string& n) { return host_memory_named(n); });
  s.sweep.min_bytes = static_cast<uint64_t>(r.integer("min_bytes", 1, int64_t{1} << 36, 1024));
  s.sweep.max_bytes = static_cast<uint64_t>(r.integer("max_bytes", 1, int64_t{1} << 36, 256 << 20));
  s.sweep.factor = static_cast<uint64_t>(r.integer("step_factor", 2, 1024, 4));
  try {
    sizes(s.sweep);
  } catch (const BadInput& e) {
    refuse_key("max_bytes", e.what());
  }
  s.iterations = static_cast<int>(r.integer("iterations", 1, 100000, 20));
  s.warmup_iterations = static_cast<int>(r.integer("warmup_iterations", 0, 10000, 2));
  if (r.has("devices")) {
    for (int d : list_of<int>(r, "devices", "", [](const std::string& n) {
           if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 2)
             throw BadInput("\"" + n + "\" is not a device index");
           return std::stoi(n);
         }))
      s.devices.push_back(d);
  }
  s.peer.methods = list_or_none<PeerMethod>(r, "peer_methods", "ce,sm", [](const std::string& n) { return peer_method_named(n); });
  s.peer.modes = list_of<PeerMode>(r, "peer_modes", "uni,bi", [](const std::string& n) { return peer_mode_named(n); });
  s.peer.bytes = list_of<uint64_t>(r, "peer_bytes", "256M", [](const std::string& n) {
    const uint64_t b = parse_size(n);
    if (b == 0 || b > (16ull << 30)) throw BadInput("peer copy size \"" + n + "\" must be 1 B .. 16G");
    return b;
  });
  s.peer.aggregate = list_or_none<HostDirection>(r, "aggregate", "h2d,d2h", [](const std::string& n) { return host_direction_named(n); });
  s.local.tests = list_or_none<LocalTest>(r, "local_tests", "none", [](const std::string& n) { return local_test_named(n); });
  s.local.latency = list_or_none<LatencyTarget>(r, "latency", "none", [](const std::string& n) { return latency_target_named(n); });
  // 16 B .. 16 GiB, whole 16-byte vectors: the kernels load and store 16 bytes at a time
  s.local.bytes = static_cast<uint64_t>(r.integer("local_bytes", 16, int64_t{1} << 34, 512 << 20));
  if (s.local.bytes % 16) refuse_key("local_bytes", "must be a multiple of 16 (the SM passes move 16-byte vectors)");
  s.local.repeats = static_cast<int>(r.integer("local_repeats", 1, 100, 1));
  return s;
}

const CopySpec& copy_options(const Cell& c) { return std::any_cast<const CopySpec&>(c.options); }

}  // namespace spiral::gpucopy
