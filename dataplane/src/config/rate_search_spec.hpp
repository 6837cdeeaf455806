#pragma once
// The cell's "search" object: find the highest offered rate a paced sender holds without loss
// (NDR) and, with a tolerance, with at most that loss (PDR), by trials inside one run. Parsed by
// config/rate_search_parse.cpp, run by search/rate_search.cpp through the run drivers
// (run/search_run.cpp). docs/ndr-search.md explains every field.
#include <cstdint>
#include <string>

namespace spiral {

enum class SearchMethod {
  binary,        // probe the middle of the bracket
  receive_rate,  // probe just below what the receiver got in the last lossy trial, then gallop up
};

struct RateSearchSpec {
  uint64_t lower_mbps = 1;        // lowest rate searched; no rate below it is tried
  uint64_t upper_mbps = 0;        // highest; 0 = the rate an unpaced first trial reaches
  uint64_t trial_ms = 2000;       // measured window of each search trial
  uint64_t resolution_mbps = 0;   // stop when the bracket is at most this wide; 0: use resolution_percent
  uint32_t resolution_percent = 1;  // of the upper bound, when resolution_mbps is 0
  uint64_t pdr_ppm = 0;           // PDR tolerance, loss per million sent; 0 = no PDR search
  uint64_t settle_ms = 500;       // pause between trials so queues drain
  SearchMethod method = SearchMethod::receive_rate;
};

const char* to_string(SearchMethod m);

}  // namespace spiral
