#include "transports/nccl/nccl_options.hpp"

#include <algorithm>
#include <any>
#include <filesystem>

#include "sys/errors.hpp"
#include "transports/nccl/alltoallv.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"

namespace spiral::nccl {

const std::set<std::string> kNcclKeys = {"op",         "min_bytes",     "max_bytes",     "step_factor", "iterations",
                                         "warmup_iterations", "check_iterations", "data_type", "reduce_op", "root",
                                         "placement",  "network",       "ib_hcas",       "socket_ifname", "gpus",
                                         "first_rank", "nranks",        "bootstrap_timeout_ms", "nccl_tests_json",
                                         "unalign",    "blocking",      "timeout_s",     "registration",
                                         "alltoallv_spread_percent", "alltoallv_matrix", "split"};

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

template <typename F>
auto refused_as(const std::string& key, F&& f) {
  try {
    return f();
  } catch (const BadInput& e) {
    refuse_key(key, e.what());
  }
}

}  // namespace

const char* to_string(NcclOptions::Network n) {
  switch (n) {
    case NcclOptions::Network::rdma: return "rdma";
    case NcclOptions::Network::socket: return "socket";
    case NcclOptions::Network::automatic: break;
  }
  return "auto";
}

const char* to_string(Blocking b) {
  switch (b) {
    case Blocking::wait_barrier: return "wait_barrier";
    case Blocking::wait: return "wait";
    case Blocking::wait_untimed_barrier: return "wait_untimed_barrier";
    case Blocking::none: break;
  }
  return "none";
}

const char* to_string(Registration r) {
  switch (r) {
    case Registration::local: return "local";
    case Registration::symmetric: return "symmetric";
    case Registration::none: break;
  }
  return "none";
}

NcclOptions parse_nccl_options(const ObjectReader& r, const Cell&) {
  NcclOptions o;
  SweepSpec& s = o.spec;
  s.collective = refused_as("op", [&] { return collective_named(r.text("op", 32, "all_reduce")).id; });
  s.type = refused_as("data_type", [&] { return element_type_named(r.text("data_type", 16, "float")); });
  s.op = refused_as("reduce_op", [&] { return reduce_op_named(r.text("reduce_op", 8, "sum")); });
  s.sweep.min_bytes = static_cast<uint64_t>(r.integer("min_bytes", 1, int64_t{1} << 36, 8));
  s.sweep.max_bytes = static_cast<uint64_t>(r.integer("max_bytes", 1, int64_t{1} << 36, 128 << 20));
  s.sweep.factor = static_cast<uint64_t>(r.integer("step_factor", 2, 1024, 2));
  refused_as("max_bytes", [&] { return sizes(s.sweep).size(); });
  s.iterations = static_cast<int>(r.integer("iterations", 1, 100000, 20));
  s.warmup_iterations = static_cast<int>(r.integer("warmup_iterations", 0, 10000, 1));
  s.check_iterations = static_cast<int>(r.integer("check_iterations", 0, 100, 1));
  const auto placement = r.text("placement", 16, "both");
  if (placement != "both" && placement != "out_of_place" && placement != "in_place")
    refuse_key("placement", "must be both, out_of_place or in_place, got \"" + placement + "\"");
  s.out_of_place = placement != "in_place";
  s.in_place = placement != "out_of_place";
  // Only in-place rows of an operation without an in-place form: a check asked, nothing checked.
  const auto& coll = info(s.collective);
  if (!s.out_of_place && s.check_iterations > 0 && !coll.defines_in_place)
    refuse_key("placement", "NCCL defines no in-place " + std::string(coll.name) +
                                ", so nothing would be checked: use out_of_place or both (or check_iterations 0)");
  s.unalign = static_cast<int>(r.integer("unalign", 0, 1024, 0));
  s.blocking = r.one_of("blocking", Blocking::none,
                        {{"none", Blocking::none}, {"wait_barrier", Blocking::wait_barrier}, {"wait", Blocking::wait},
                         {"wait_untimed_barrier", Blocking::wait_untimed_barrier}});
  s.timeout_s = static_cast<int>(r.integer("timeout_s", 0, 86400, 0));
  s.registration = r.one_of("registration", Registration::none,
                            {{"none", Registration::none}, {"local", Registration::local},
                             {"symmetric", Registration::symmetric}});
  o.gpus = static_cast<int>(r.integer("gpus", 1, 16, 1));
  o.nranks = static_cast<int>(r.integer("nranks", 1, 4096, o.gpus));
  o.first_rank = static_cast<int>(r.integer("first_rank", 0, 4095, 0));
  if (o.first_rank + o.gpus > o.nranks)
    refuse_key("first_rank", "plus gpus (" + std::to_string(o.first_rank) + " + " + std::to_string(o.gpus) +
                                 ") exceeds nranks " + std::to_string(o.nranks));
  s.root = static_cast<int>(r.integer("root", 0, 4095, 0));
  if (s.root >= o.nranks) refuse_key("root", "must be a rank below nranks " + std::to_string(o.nranks));
  // alltoallv's traffic: distance-weighted by a spread, or a matrix (alltoallv.hpp)
  const bool alltoallv = s.collective == Collective::all_to_all_v;
  for (const char* key : {"alltoallv_spread_percent", "alltoallv_matrix"})
    if (r.has(key) && !alltoallv) refuse_key(key, "applies to op alltoallv only: remove it");
  s.alltoallv.spread = static_cast<double>(r.integer("alltoallv_spread_percent", 0, 100, 100)) / 100.0;
  if (const auto m = r.text("alltoallv_matrix", 65536, ""); !m.empty()) {
    if (r.has("alltoallv_spread_percent")) refuse_key("alltoallv_spread_percent", "a traffic matrix has no spread: remove one");
    const double spread = s.alltoallv.spread;
    s.alltoallv = refused_as("alltoallv_matrix", [&] { return parse_traffic_matrix(m); });
    s.alltoallv.spread = spread;
  }
  if (alltoallv) {
    if (const auto why = alltoallv_refusal(s.alltoallv, o.nranks, s.sweep.min_bytes, s.sweep.max_bytes); !why.empty())
      refuse_key(s.alltoallv.from_matrix() ? "alltoallv_matrix" : "alltoallv_spread_percent", why);
  }
  s.split = refused_as("split", [&] { return parse_split(r.text("split", 32, "")); });
  if (const auto why = split_refusal(s.split, o.nranks, s.root); !why.empty()) refuse_key("split", why);
  o.bootstrap_timeout_ms = static_cast<uint32_t>(r.integer("bootstrap_timeout_ms", 1000, 3600000, 120000));
  o.network = r.one_of("network", NcclOptions::Network::automatic,
                       {{"auto", NcclOptions::Network::automatic}, {"rdma", NcclOptions::Network::rdma},
                        {"socket", NcclOptions::Network::socket}});
  o.ib_hcas = split(r.text("ib_hcas", 1024, ""));
  if (!o.ib_hcas.empty() && o.network != NcclOptions::Network::rdma)
    refuse_key("ib_hcas", "selects RDMA devices: set network rdma, or remove ib_hcas");
  o.socket_ifname = r.text("socket_ifname", 15, "");
  o.nccl_tests_json = r.text("nccl_tests_json", 4096, "");
  return o;
}

const NcclOptions& nccl_options(const Cell& c) { return std::any_cast<const NcclOptions&>(c.options); }

std::vector<std::string> visible_rdma_devices(const std::string& sysfs_root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(sysfs_root + "/class/infiniband", ec))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

NetworkChoice network_choice(const NcclOptions& o, const std::string& sysfs_root) {
  NetworkChoice n;
  n.socket_interface = o.socket_ifname;
  n.require_rdma = o.network == NcclOptions::Network::rdma;
  n.disable_ib = o.network == NcclOptions::Network::socket;
  if (n.require_rdma) n.rdma_devices = o.ib_hcas.empty() ? visible_rdma_devices(sysfs_root) : o.ib_hcas;
  return n;
}

}  // namespace spiral::nccl
