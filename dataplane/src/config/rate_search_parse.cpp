#include "config/rate_search_parse.hpp"

#include "config/object_reader.hpp"
#include "kinds/registry.hpp"

namespace spiral {

namespace {

constexpr int64_t kMaxRateMbps = 100'000'000;  // as target_mbps

std::string searchable_kind_names() {
  std::string names;
  for (const BenchKind* k : bench_kinds())
    if (k->rate_search) names += (names.empty() ? "" : ", ") + k->name;
  return names;
}

}  // namespace

void parse_rate_search(const nlohmann::json& j, Cell& c) {
  ObjectReader r(j, "search", {"lower_mbps", "upper_mbps", "trial_seconds", "resolution_mbps", "resolution_percent",
                               "pdr_ppm", "settle_ms", "method"});
  RateSearchSpec s;
  s.lower_mbps = static_cast<uint64_t>(r.integer("lower_mbps", 1, kMaxRateMbps, s.lower_mbps));
  s.upper_mbps = static_cast<uint64_t>(r.integer("upper_mbps", 0, kMaxRateMbps, 0));
  if (s.upper_mbps && s.upper_mbps <= s.lower_mbps)
    refuse_key("search.upper_mbps", "must be above search.lower_mbps (" + std::to_string(s.lower_mbps) +
                                        "), or 0 to use the rate of an unpaced first trial; got " +
                                        std::to_string(s.upper_mbps));
  s.trial_ms = r.millis_from_seconds("trial_seconds", false, s.trial_ms);
  if (r.has("resolution_mbps") && r.has("resolution_percent"))
    refuse_key("search.resolution_mbps", "and search.resolution_percent are exclusive: give one");
  s.resolution_mbps = static_cast<uint64_t>(r.integer("resolution_mbps", 1, kMaxRateMbps, 0));
  s.resolution_percent = static_cast<uint32_t>(r.integer("resolution_percent", 1, 50, s.resolution_percent));
  s.pdr_ppm = static_cast<uint64_t>(r.integer("pdr_ppm", 0, 999'999, 0));
  s.settle_ms = static_cast<uint64_t>(r.integer("settle_ms", 0, 60'000, s.settle_ms));
  s.method = r.one_of("method", s.method, {{"binary", SearchMethod::binary}, {"receive_rate", SearchMethod::receive_rate}});
  c.search = s;
}

void check_rate_search(const Cell& c) {
  if (!c.search) return;
  if (!c.kind->rate_search)
    refuse_key("search", "applies to paced transports whose trials count every lost datagram or frame (" +
                             searchable_kind_names() + "); " + c.kind->name + " is not one: remove search");
  if (c.target_mbps)
    refuse_key("target_mbps", "is set by the search for each trial: leave it out (or 0) when search is given");
  if (c.search->upper_mbps && c.search->lower_mbps >= c.search->upper_mbps)
    refuse_key("search.lower_mbps", "must be below search.upper_mbps");
}

nlohmann::json rate_search_to_json(const RateSearchSpec& s) {
  nlohmann::json j = {{"lower_mbps", s.lower_mbps},
                      {"upper_mbps", s.upper_mbps},
                      {"trial_seconds", double(s.trial_ms) / 1000.0},
                      {"pdr_ppm", s.pdr_ppm},
                      {"settle_ms", s.settle_ms},
                      {"method", to_string(s.method)}};
  // the one resolution that applies, so the echo parses back as the same cell
  if (s.resolution_mbps) j["resolution_mbps"] = s.resolution_mbps;
  else j["resolution_percent"] = s.resolution_percent;
  return j;
}

}  // namespace spiral
