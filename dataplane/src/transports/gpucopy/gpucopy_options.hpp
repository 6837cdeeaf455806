#pragma once
// The gpucopy kind's keys (its flags: --directions -> directions, ...) into a CopySpec, stored in
// Cell::options.
#include <set>
#include <string>

#include "config/cell.hpp"
#include "config/object_reader.hpp"
#include "transports/gpucopy/copy_spec.hpp"

namespace spiral::gpucopy {

extern const std::set<std::string> kCopyKeys;
CopySpec parse_copy_options(const ObjectReader& r);
const CopySpec& copy_options(const Cell& c);

}  // namespace spiral::gpucopy
