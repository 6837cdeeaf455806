#pragma once
// The control protocol's messages (docs/dataplane.md, "Control protocol"):
//   client -> server: hello, measure, end{sender report}; in a rate search, one such exchange per
//                     trial (a new connection each), then search_done on a connection of its own
//   client -> server: refused{reason} instead of a hello when its preflight refused the cell
//   server -> client: welcome{run_id} or error{reason}, report{receiver report}
#include <nlohmann/json.hpp>
#include <string>

#include "config/cell.hpp"
#include "metrics/side_report.hpp"

namespace spiral {

constexpr int kProtocolVersion = 1;

nlohmann::json hello_message(const Cell& client);
// Empty when the client's cell can run against this server's, else what differs.
std::string hello_mismatch(const nlohmann::json& hello, const Cell& server);

// After a rate search's last trial: the server stops serving trials.
nlohmann::json search_done_message();
nlohmann::json welcome_message(uint32_t run_id);
nlohmann::json error_message(const std::string& reason);
// The client's preflight refused the cell (bad input): the server ends as refused too.
nlohmann::json refused_message(const std::string& reason);
nlohmann::json measure_message();
nlohmann::json end_message(const SideReport& sender);
nlohmann::json report_message(const SideReport& receiver);

nlohmann::json to_json(const SideReport& report);
// Throws RunFailure when fields are missing or of the wrong type.
SideReport side_report_from_json(const nlohmann::json& j);

}  // namespace spiral
