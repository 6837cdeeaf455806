#include "transports/gpucopy/local_spec.hpp"

#include <algorithm>
#include <cmath>

#include "sys/errors.hpp"

namespace spiral::gpucopy {

std::string_view name(LocalTest t) { return t == LocalTest::sm_read ? "sm_read" : "sm_write"; }

std::string_view name(LatencyTarget t) {
  switch (t) {
    case LatencyTarget::device: return "device";
    case LatencyTarget::host: return "host";
    case LatencyTarget::peer: return "peer";
  }
  return "?";
}

LocalTest local_test_named(std::string_view n) {
  for (LocalTest t : {LocalTest::sm_read, LocalTest::sm_write})
    if (name(t) == n) return t;
  throw BadInput("unknown local test \"" + std::string(n) + "\" (known: sm_read, sm_write)");
}

LatencyTarget latency_target_named(std::string_view n) {
  for (LatencyTarget t : {LatencyTarget::device, LatencyTarget::host, LatencyTarget::peer})
    if (name(t) == n) return t;
  throw BadInput("unknown latency target \"" + std::string(n) + "\" (known: device, host, peer)");
}

uint64_t chase_next(uint64_t slot, uint64_t n) { return (slot + kChaseStride) % n; }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double cv_percent(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  if (mean == 0) return 0;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return 100.0 * std::sqrt(ss / static_cast<double>(v.size() - 1)) / std::fabs(mean);
}

LocalFigure figure_of(int device, std::string test, int peer, const std::vector<double>& samples) {
  return {device, std::move(test), peer, median(samples), cv_percent(samples), static_cast<int>(samples.size())};
}

nlohmann::json local_part(const std::vector<LocalFigure>& figures) {
  auto out = nlohmann::json::array();
  for (const auto& f : figures)
    out.push_back({f.device, f.test, f.peer, std::llround(f.value * 1e3), std::llround(f.cv_percent * 1e3), f.repeats});
  return out;
}

}  // namespace spiral::gpucopy
