#pragma once
// The links of a two-sided run and the interface each side reads PHY counters from: the client
// resolves every server address and asks the kernel which interface routes to it; the server
// finds the interface holding each address the client connects to (sent in the hello). A cell's
// netdevs list names them instead.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "metrics/wire_proof.hpp"
#include "sys/clock.hpp"

namespace spiral {

struct LinkEnd {
  std::string address;  // the server's IPv4 address of this link
  std::string netdev;   // this side's interface, "" when none was found
};

std::vector<LinkEnd> client_links(const Cell& cell, uint16_t port, Clock::time_point deadline);
std::vector<LinkEnd> server_links(const Cell& cell, const nlohmann::json& hello);

nlohmann::json links_to_json(const std::vector<LinkEnd>& links);  // the hello's "links": addresses

// Samples the PHY counters of every link's netdev (sys/ethtool.hpp).
std::vector<PhySample> sample_links(const std::vector<LinkEnd>& links);

}  // namespace spiral
