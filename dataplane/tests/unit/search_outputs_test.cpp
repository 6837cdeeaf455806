// A rate search in the outputs: the record carries every trial, the summary a compact list that
// stays within the termination message's 4096 bytes however long the search, the CSV the rates.
#include <gtest/gtest.h>

#include "output/csv_row.hpp"
#include "output/record_json.hpp"
#include "output/search_json.hpp"
#include "output/summary.hpp"
#include "report_builders.hpp"

namespace spiral {
namespace {

using namespace spiral::testing;

SearchOutcome long_search(uint32_t trials) {
  SearchOutcome s;
  s.lower_mbps = 1;
  s.upper_mbps = 99'999'999;
  s.resolution_mbps = 1;
  s.pdr_ppm = 999'999;
  s.ndr_mbps = 12'345'678;
  s.pdr_mbps = 12'345'679;
  s.verified = true;
  for (uint32_t i = 0; i < trials; ++i) {
    Trial t;
    t.index = i;
    t.rate_mbps = t.offered_mbps = 99'999'999 - i;
    t.measure = {false, "", true, 99'999'999'999, 99'999'999'000, 999, 99'999'999, 99'999'998};
    t.loss_ppm = 0;
    t.verdict = i % 2 ? "pass" : "not_held";
    s.trials.push_back(t);
  }
  s.verify_trial = trials - 1;
  s.trials.back().purpose = TrialPurpose::verify;
  return s;
}

TEST(SearchOutputs, RecordHasEveryTrialSummaryACompactBoundedList) {
  Cell cell = udp_cell();
  RunResult r;
  r.state = RunState::valid;
  r.pairs.resize(1);
  r.search = long_search(40);
  const auto record = result_record(cell, r);
  ASSERT_EQ(record["search"]["trials"].size(), 40u);
  EXPECT_EQ(record["search"]["trials"][39]["purpose"], "verify");
  EXPECT_EQ(record["search"]["ndr_mbps"], 12'345'678);
  EXPECT_EQ(record["search"]["search_trials"], 39);
  const std::string text = summary_text(cell, r);
  EXPECT_LE(text.size(), kSummaryMaxBytes);
  const auto summary = nlohmann::json::parse(text);
  ASSERT_EQ(summary["search"]["trials"].size(), kSummaryMaxTrials);
  EXPECT_EQ(summary["search"]["trials_left_out"], 40 - kSummaryMaxTrials);
  EXPECT_EQ(summary["search"]["trials"][1], nlohmann::json({99'999'998, 99'999'999'999, 99'999'999'000, 0, "pass"}));
  EXPECT_EQ(summary["search"]["pdr_mbps"], 12'345'679);
}

TEST(SearchOutputs, TheTrialListGivesWayToFitARepeatsShareOfTheSummary) {
  Cell cell = udp_cell();
  RunResult r;
  r.state = RunState::valid;
  r.pairs.resize(1);
  r.search = long_search(40);
  const size_t share = kSummaryMaxBytes / 3 - 1;  // three repeats in one process
  const std::string text = summary_text(cell, r, share);
  EXPECT_LE(text.size(), share);
  const auto summary = nlohmann::json::parse(text);
  EXPECT_LT(summary["search"]["trials"].size(), kSummaryMaxTrials);
  EXPECT_EQ(summary["search"]["trials"].size() + summary["search"]["trials_left_out"].get<size_t>(), 40u);
  EXPECT_EQ(summary["search"]["ndr_mbps"], 12'345'678) << "the found rates always stay";
}

TEST(SearchOutputs, NdrBelowTheLowerBoundIsNullInJsonAndZeroInTheCsv) {
  Cell cell = udp_cell();
  RunResult r;
  r.pairs.resize(1);
  r.search = SearchOutcome{};
  r.search->ndr_below_lower = true;
  const auto record = result_record(cell, r);
  EXPECT_TRUE(record["search"]["ndr_mbps"].is_null());
  EXPECT_EQ(record["search"]["ndr_below_lower"], true);
  const std::string row = csv_row(cell, r);
  EXPECT_EQ(row.substr(row.size() - 3), ",0,") << "ndr_mbps 0, pdr_mbps empty without a tolerance: " << row;
  r.search.reset();
  const std::string plain = csv_row(cell, r);
  EXPECT_EQ(plain.substr(plain.size() - 2), ",,") << "no search: both empty";
}

}  // namespace
}  // namespace spiral
