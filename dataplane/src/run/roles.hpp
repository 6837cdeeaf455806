#pragma once
// The three roles. Each returns the run's result (state Failed when it broke off half-way) or
// throws BadInput for problems found before anything ran (port in use, unreachable server).
#include <functional>
#include <memory>
#include <ostream>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

// progress, when given, gets a progress event a second while the client measures (sbctl watch).
RunResult run_client(const Cell& cell, std::ostream* progress = nullptr);
// `out` receives the ready line; on_ready runs right after it (loopback's barrier).
RunResult run_server(const Cell& cell, std::ostream& out, const std::function<void()>& on_ready = [] {});
// Role loopback: both sides in this process, as the kind's run mode says (two_sided: server and
// client over the control channel; in_process: run_in_process).
// progress, when given, gets the in-process kinds' progress events (both sides, a second apart).
RunResult run_loopback(const Cell& cell, std::ostream* progress = nullptr);
// The in-process run driver (run/in_process.cpp): the kind's LocalSession, no control channel;
// progress, when given, gets a sender and a receiver progress event a second while it measures.
RunResult run_in_process(const Cell& cell, std::ostream* progress = nullptr);
// Its two halves: the kind's session, opened, with the ready file written; one run on it.
std::unique_ptr<LocalSession> open_local_session(const Cell& cell);
RunResult run_local_session(const Cell& cell, LocalSession& session, std::ostream* progress = nullptr);
// A cell with a rate search (run/search_run.cpp): the trials, each one run of the kind's driver
// (client against a server serving trials, or the in-process driver), in this process.
RunResult run_search_client(const Cell& cell, std::ostream* progress = nullptr);
RunResult run_search_in_process(const Cell& cell);
// The ranks run driver (run/ranks.cpp): this pod's ranks, one child process each (role rank, or
// loopback of a kind of ranks).
RunResult run_ranks(const Cell& cell);

}  // namespace spiral
