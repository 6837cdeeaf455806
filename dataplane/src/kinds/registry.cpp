#include "kinds/registry.hpp"

#include "sys/errors.hpp"
#include "transports/gpucopy/gpucopy_kind.hpp"
#include "transports/nccl/nccl_kind.hpp"
#include "transports/raw/raw_kind.hpp"
#include "transports/roce/roce_kind.hpp"
#include "transports/tcp/tcp_kind.hpp"
#include "transports/udp/udp_kind.hpp"

namespace spiral {

const std::vector<const BenchKind*>& bench_kinds() {
  // A new kind: one line here, one file beside its transport (docs/dataplane.md, "Adding a bench kind").
  static const std::vector<const BenchKind*> kinds = {&tcp::kind(), &udp::kind(), &raw::kind(), &roce::kind(),
                                                          &nccl::kind(), &gpucopy::kind()};
  return kinds;
}

const BenchKind* find_kind(const std::string& name) {
  for (const BenchKind* k : bench_kinds())
    if (k->name == name) return k;
  return nullptr;
}

const BenchKind& kind_named(const std::string& name) {
  if (const BenchKind* k = find_kind(name)) return *k;
  throw BadInput("unknown bench kind \"" + name + "\" (" + kind_names() + ")");
}

std::string kind_names(const std::string& last) {
  std::string out;
  const auto& kinds = bench_kinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i) out += i + 1 == kinds.size() ? " " + last + " " : ", ";
    out += kinds[i]->name;
  }
  return out;
}

}  // namespace spiral
