#include "transports/nccl/nccl_tests_json.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include "sys/errors.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"

extern char** environ;

namespace spiral::nccl {

using ojson = nlohmann::ordered_json;

namespace {

// nccl-tests writes a NaN as the string "nan" (JSON has no NaN); other doubles as numbers.
ojson number(double v) { return v != v ? ojson("nan") : ojson(v); }

// nccl-tests' jsonBool: the strings "true" and "false", not JSON booleans.
ojson flag(bool v) { return v ? "true" : "false"; }

int version_code(const std::string& v) {  // "2.28.9" -> 22809 (NCCL_VERSION since 2.9)
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(v.c_str(), "%d.%d.%d", &major, &minor, &patch) < 2) return 0;
  return major * 10000 + minor * 100 + patch;
}

// "0000:1B:00.0" -> "0000:1b:00", nccl-tests' "%04x:%02x:%02x" of domain, bus and device
std::string device_hex(const std::string& bus_id) {
  std::string out = bus_id.substr(0, bus_id.find('.'));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// src/util.cu's computeIterStats: p50 the upper median, p95/p99 the nearest rank, the
// population standard deviation.
ojson per_iter(const std::vector<double>& times, const SizeRow* const* process_rows, int nprocs) {
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  auto percentile = [&](size_t p) { return sorted[std::min(n - 1, (n * p + 99) / 100 - 1)]; };
  double sum = 0, var = 0;
  for (double t : sorted) sum += t;
  const double avg = sum / static_cast<double>(n);
  for (double t : sorted) var += (t - avg) * (t - avg);
  const double stdev = std::sqrt(var / static_cast<double>(n));
  ojson j;
  j["skipped_iterations"] = 0;
  j["min_us"] = number(sorted.front());
  j["max_us"] = number(sorted.back());
  j["avg_us"] = number(avg);
  j["p50_us"] = number(sorted[n / 2]);
  j["p95_us"] = number(percentile(95));
  j["p99_us"] = number(percentile(99));
  j["stdev_us"] = number(stdev);
  j["cv_pct"] = number(avg > 0 ? stdev / avg * 100.0 : 0.0);
  j["times_us"] = ojson::array();
  for (double t : times) j["times_us"].push_back(number(t));
  if (process_rows && nprocs > 1) {  // nccl-tests writes process rows from two processes on
    auto rows = ojson::array();
    for (int r = 0; r < nprocs; ++r) {
      auto row = ojson::array();
      for (size_t i = 0; i < n; ++i) row.push_back(number(process_rows[r]->iter_us[i]));
      rows.push_back(row);
    }
    j["per_process_max_times_us"] = rows;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const RankDevice& d) {
  return {{"rank", d.rank}, {"pid", d.pid}, {"host", d.host}, {"device", d.device}, {"pci_bus_id", d.pci_bus_id},
          {"name", d.name}};
}

RankDevice rank_device_from_json(const nlohmann::json& j) {
  RankDevice d;
  if (!j.is_object()) return d;
  d.rank = j.value("rank", 0);
  d.pid = j.value("pid", 0);
  d.host = j.value("host", "");
  d.device = j.value("device", 0);
  d.pci_bus_id = j.value("pci_bus_id", "");
  d.name = j.value("name", "");
  return d;
}

ojson nccl_tests_json(const NcclTestsRun& run) {
  const SweepSpec& s = run.spec;
  const auto& coll = info(s.collective);
  ojson doc;
  doc["version"] = kNcclTestsJsonVersion;
  doc["start_time"] = run.start_time.empty() ? ojson(nullptr) : ojson(run.start_time);  // null: not known
  doc["args"] = run.args;
  doc["env"] = run.env;
  doc["nccl_version"] = version_code(run.nccl_version);

  bool timed = false;
  for (const auto& r : run.rows) timed = timed || !r.iter_us.empty();
  ojson config;
  config["nthreads"] = 1;
  config["ngpus"] = 1;
  config["minimum_bytes"] = s.sweep.min_bytes;
  config["maximum_bytes"] = s.sweep.max_bytes;
  if (s.sweep.factor > 1) config["step_factor"] = s.sweep.factor;
  else config["step_bytes"] = s.sweep.step_bytes;
  config["warmup_iters"] = s.warmup_iterations;
  config["iterations"] = s.iterations;
  config["aggregated_iterations"] = 1;
  config["validation"] = s.check_iterations;
  config["graph"] = 0;
  config["blocking_collectives"] = flag(false);
  config["per_iter_timing"] = flag(timed);
  config["per_iter_skip"] = 0;
  config["parallel_init"] = flag(false);
  // what a rank did not tell is null (nccl-tests' jsonStr of no string), never a made-up value
  auto known = [](const std::string& v) { return v.empty() ? ojson(nullptr) : ojson(v); };
  config["devices"] = ojson::array();
  for (const RankDevice& d : run.devices)
    config["devices"].push_back({{"rank", d.rank}, {"group", 0}, {"pid", d.pid > 0 ? ojson(d.pid) : ojson(nullptr)},
                                 {"hostname", known(d.host)}, {"device", d.device},
                                 {"device_hex", known(device_hex(d.pci_bus_id))}, {"device_info", known(d.name)}});
  doc["config"] = config;

  const std::string type(info(s.type).name);
  const std::string redop = coll.reduces ? std::string(name(s.op)) : "none";
  char root[16];
  std::snprintf(root, sizeof root, "%6i", coll.rooted ? s.root : -1);  // nccl-tests' "%6i" string
  const int nprocs = static_cast<int>(run.per_rank.size());
  auto results = ojson::array();
  int out_of_bounds = 0;
  double busbw_sum = 0;
  int busbw_rows = 0;
  for (size_t i = 0; i < run.rows.size();) {
    const uint64_t bytes = run.rows[i].bytes;
    ojson res;
    res["size"] = bytes;
    res["count"] = run.rows[i].count;
    res["type"] = type;
    res["redop"] = redop;
    res["root"] = root;
    std::pair<size_t, size_t> at{SIZE_MAX, SIZE_MAX};  // out of place, in place
    for (; i < run.rows.size() && run.rows[i].bytes == bytes; ++i)
      (run.rows[i].in_place ? at.second : at.first) = i;
    for (const bool in_place : {false, true}) {
      const size_t k = in_place ? at.second : at.first;
      const char* key = in_place ? "in_place" : "out_of_place";
      if (k == SIZE_MAX) {  // not run: null, as nccl-tests' writeBenchMarkLineNullBody
        res[key] = nullptr;
        continue;
      }
      const SizeRow& r = run.rows[k];
      res[key] = {{"time", number(r.time_us)}, {"alg_bw", number(r.algbw_gbps)}, {"bus_bw", number(r.busbw_gbps)},
                  {"nwrong", r.wrong < 0 ? ojson(nullptr) : number(static_cast<double>(r.wrong))}};
      if (r.wrong > 0) ++out_of_bounds;
      busbw_sum += r.busbw_gbps;
      ++busbw_rows;
      if (r.iter_us.empty()) continue;
      // process rows only when every rank kept at least the merged row's iterations
      std::vector<const SizeRow*> procs;
      for (const auto& rank_rows : run.per_rank)
        if (k < rank_rows.size() && rank_rows[k].bytes == bytes && rank_rows[k].iter_us.size() >= r.iter_us.size())
          procs.push_back(&rank_rows[k]);
      const bool complete = nprocs > 1 && static_cast<int>(procs.size()) == nprocs;
      res[std::string(key) + "_per_iter"] = per_iter(r.iter_us, complete ? procs.data() : nullptr, nprocs);
    }
    res["actual_iterations"] = s.iterations;
    res["experiment_name"] = "";
    results.push_back(res);
  }
  doc["results"] = results;
  doc["out_of_bounds"] = {{"count", out_of_bounds}, {"okay", flag(out_of_bounds == 0)}};
  // nccl-tests' average over every size and placement; NCCL_TESTS_MIN_BW has no equivalent
  doc["average_bus_bandwidth"] = {{"bandwidth", number(busbw_rows ? busbw_sum / busbw_rows : NAN)},
                                  {"okay", "unchecked"}};
  doc["errors"] = run.errors;
  doc["end_time"] = run.end_time.empty() ? ojson(nullptr) : ojson(run.end_time);
  return doc;
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

std::vector<std::string> nccl_environment_now() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "NCCL_", 5) == 0 || std::strncmp(*e, "CUDA_", 5) == 0) out.emplace_back(*e);
  std::sort(out.begin(), out.end());
  return out;
}

std::string local_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string write_nccl_tests_json(const std::string& path, const NcclTestsRun& run) {
  const std::string text = nccl_tests_json(run).dump() + "\n";
  std::string target = path;
  for (int n = 0;; ++n) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      ::close(fd);
      if (!ok) throw RunFailure("nccl-tests JSON: cannot write " + target);
      return target;
    }
    if (errno != EEXIST || n > 999) throw RunFailure("nccl-tests JSON: cannot create " + target + ": " + std::strerror(errno));
    target = path + "." + std::to_string(n);
  }
}

}  // namespace spiral::nccl
