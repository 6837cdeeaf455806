#pragma once
// A rate search in the outputs: the record gets every trial in full, the summary (bounded to
// kSummaryMaxBytes) the found rates and a compact trial list. docs/ndr-search.md reads them.
#include <nlohmann/json.hpp>

#include "search/rate_search.hpp"

namespace spiral {

constexpr size_t kSummaryMaxTrials = 16;

nlohmann::ordered_json search_record(const SearchOutcome& s);
// Compact: trials as [rate_mbps, sent, received, loss_ppm, verdict], the first max_trials
// (summary.cpp lowers it to fit a repeat's share of the termination message).
nlohmann::ordered_json search_summary(const SearchOutcome& s, size_t max_trials = kSummaryMaxTrials);

}  // namespace spiral
