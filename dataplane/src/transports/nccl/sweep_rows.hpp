#pragma once
// The rows of one NCCL cell: to and from the JSON the ranks report to rank 0, merged over ranks
// as nccl-tests merges them (the mean time; bandwidths from that mean; wrong elements summed),
// and printed as nccl-tests prints them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "transports/nccl/sweep_spec.hpp"

namespace spiral::nccl {

nlohmann::json to_json(const std::vector<SizeRow>& rows);
std::vector<SizeRow> rows_from_json(const nlohmann::json& j);  // throws RunFailure when malformed

// The percentiles nccl-tests 2.19 reports for -I: p50 the upper median (sorted[n/2]), p99 the
// nearest rank (the smallest time with at least 99% of the times at or below it).
struct IterationStats {
  double p50_us = 0, p99_us = 0;
};
IterationStats iteration_stats(std::vector<double> times_us);

// rows[r] are rank r's rows, the same sizes in the same order; throws RunFailure otherwise.
// Per iteration, each rank's percentiles merge to the largest: nccl-tests instead takes every
// iteration's maximum over the ranks first, which is at least as large; the merged iter_us are
// those maxima (nccl-tests' times_us), over the iterations every rank kept.
std::vector<SizeRow> merge_ranks(const std::vector<std::vector<SizeRow>>& rows, const SweepSpec& spec);

// nccl-tests' table: size, count, type, redop, root, then time/algbw/busbw/#wrong for out of
// place and in place ("N/A" for what was not run or not checked).
std::string format_table(const std::vector<SizeRow>& rows, const SweepSpec& spec);

// True when every checked row had no wrong element (nccl-tests' "Out of bounds values : 0 OK").
bool check_passed(const std::vector<SizeRow>& rows);

}  // namespace spiral::nccl
