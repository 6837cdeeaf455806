#pragma once
// The raw kind's keys and their rules.
#include <set>
#include <string>

#include "config/object_reader.hpp"
#include "transports/raw/raw_options.hpp"

namespace spiral {

extern const std::set<std::string> kRawKeys;

// Reads the raw keys (tx_port and rx_port resolved from $VAR sources).
RawOptions parse_raw_options(const ObjectReader& r, const Cell& c);
// The rules that tie them to the rest of the cell. Throws BadInput.
void check_raw(const Cell& c, const ObjectReader& r);

}  // namespace spiral
