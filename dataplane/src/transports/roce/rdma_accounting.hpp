#pragma once
// The roce parts of combining two side reports, judging the run and writing its record.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"
#include "transports/roce/rdma_options.hpp"
#include "transports/roce/rdma_result.hpp"

namespace spiral::roce {

// Fills its RdmaResult (rdma_result.hpp), drops (failed completions) and, for read (one-sided: the responder's CPU sees
// nothing), the receive figures from the requester's completions. Adds counter inconsistencies
// to r.problems. Either report may be missing when the run failed half-way.
void account(const Cell& cell, const SideReport* sender, const SideReport* receiver, RunResult& r);

// Why a completed roce run does not measure what it claims, if it does not.
std::optional<std::string> verdict(const Cell& cell, const RunResult& r);

// The record's "rdma" object: options, completions, failed completions by status name, payload
// checks, retries and latency.
nlohmann::ordered_json record(const Cell& cell, const RunResult& r);

}  // namespace spiral::roce
