#pragma once
// What the operator's tests hold their own tables to (spiral-dataplane --describe-kinds): each
// bench kind's identity, its command-line flags and the spellings of its enumerated keys.
#include <nlohmann/json.hpp>

namespace spiral {

// {"cuda": built with CUDA, "kinds": [{"name", "backend", "drops_kind", "daqiri_counts_receiver", "sequenced",
//   "socket_retrans", "repeats_in_one_process", "rate_search", "multi_link", "run_mode" ("two_sided", "in_process"
//   or "ranks"), "flags": ["--verb", ...], "vocabulary": {...}}]}
nlohmann::ordered_json describe_kinds();

}  // namespace spiral
