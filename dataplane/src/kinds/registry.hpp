#pragma once
// The bench kinds this build knows, in one fixed list (kinds/registry.cpp). An explicit list,
// not self-registering objects: a static library drops objects nothing references, and the
// order of static initialisation across files is unspecified.
#include <string>
#include <vector>

#include "kinds/bench_kind.hpp"

namespace spiral {

// Every kind, in the order of the list ("tcp, udp, raw, roce, nccl or gpucopy" in messages).
const std::vector<const BenchKind*>& bench_kinds();

// The kind named `name`, or null.
const BenchKind* find_kind(const std::string& name);

// The kind named `name`; throws BadInput naming the known kinds when there is none.
const BenchKind& kind_named(const std::string& name);

// "tcp, udp, raw, roce, nccl or gpucopy": the names for messages, `last` before the final one.
std::string kind_names(const std::string& last = "or");

}  // namespace spiral
