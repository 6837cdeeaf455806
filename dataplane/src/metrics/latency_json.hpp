#pragma once
// The one JSON form of a latency summary (engine/latency_histogram.hpp): in the control channel's
// reports, the record's "latency" object and the summary's lat_* fields, for every kind with a
// latency mode.
#include <nlohmann/json.hpp>

#include "engine/latency_histogram.hpp"

namespace spiral {

// {"samples", "min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns", "histogram": [[low_ns, high_ns, count], ...]}
nlohmann::ordered_json latency_to_json(const LatencySummary& l);
// Throws nlohmann::json::exception when fields are missing or of the wrong type.
LatencySummary latency_from_json(const nlohmann::json& j);
// The summary's flat fields (lat_min_ns ... lat_max_ns), no histogram: the summary stays small.
void add_latency_summary_fields(const LatencySummary& l, nlohmann::ordered_json& summary);

}  // namespace spiral
