#include "metrics/latency_json.hpp"

namespace spiral {

nlohmann::ordered_json latency_to_json(const LatencySummary& l) {
  nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
  for (const auto& b : l.histogram) buckets.push_back({b.low_ns, b.high_ns, b.count});
  return {{"samples", l.samples}, {"min_ns", l.min_ns},   {"p50_ns", l.p50_ns},      {"p99_ns", l.p99_ns},
          {"p999_ns", l.p999_ns}, {"max_ns", l.max_ns},   {"histogram", buckets}};
}

LatencySummary latency_from_json(const nlohmann::json& j) {
  LatencySummary l;
  j.at("samples").get_to(l.samples);
  j.at("min_ns").get_to(l.min_ns);
  j.at("p50_ns").get_to(l.p50_ns);
  j.at("p99_ns").get_to(l.p99_ns);
  j.at("p999_ns").get_to(l.p999_ns);
  j.at("max_ns").get_to(l.max_ns);
  for (const auto& b : j.at("histogram"))
    l.histogram.push_back({b.at(0).get<int64_t>(), b.at(1).get<int64_t>(), b.at(2).get<uint64_t>()});
  return l;
}

void add_latency_summary_fields(const LatencySummary& l, nlohmann::ordered_json& summary) {
  summary["lat_min_ns"] = l.min_ns;
  summary["lat_p50_ns"] = l.p50_ns;
  summary["lat_p99_ns"] = l.p99_ns;
  summary["lat_p999_ns"] = l.p999_ns;
  summary["lat_max_ns"] = l.max_ns;
}

}  // namespace spiral
