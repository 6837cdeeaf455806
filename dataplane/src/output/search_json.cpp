#include "output/search_json.hpp"

namespace spiral {

using nlohmann::ordered_json;

namespace {

template <typename T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json found(const SearchOutcome& s) {
  return {{"ndr_mbps", or_null(s.ndr_mbps)},
          {"ndr_below_lower", s.ndr_below_lower},
          {"ndr_at_upper", s.ndr_at_upper},
          {"pdr_ppm", s.pdr_ppm},
          {"pdr_mbps", or_null(s.pdr_mbps)},
          {"pdr_below_lower", s.pdr_below_lower},
          {"verified", s.verified},
          {"lower_mbps", s.lower_mbps},
          {"upper_mbps", s.upper_mbps},
          {"resolution_mbps", s.resolution_mbps},
          {"search_trials", s.search_trials()},
          {"failure", s.failure}};
}

}  // namespace

ordered_json search_record(const SearchOutcome& s) {
  ordered_json j = found(s);
  ordered_json trials = ordered_json::array();
  for (const Trial& t : s.trials)
    trials.push_back({{"index", t.index},
                      {"purpose", to_string(t.purpose)},
                      {"offered_mbps", t.offered_mbps},
                      {"rate_mbps", t.rate_mbps},
                      {"seconds_milli", t.duration_ms},
                      {"sent", t.measure.sent},
                      {"received", t.measure.received},
                      {"lost", t.measure.lost},
                      {"loss_ppm", t.loss_ppm},
                      {"tx_mbps", t.measure.tx_mbps},
                      {"rx_mbps", t.measure.rx_mbps},
                      {"verdict", t.verdict},
                      {"reason", t.measure.reason}});
  j["trials"] = trials;
  return j;
}

ordered_json search_summary(const SearchOutcome& s, size_t max_trials) {
  ordered_json j = found(s);
  j.erase("failure");  // the summary's reason carries it
  ordered_json trials = ordered_json::array();
  for (size_t i = 0; i < s.trials.size() && i < max_trials; ++i) {
    const Trial& t = s.trials[i];
    trials.push_back({t.rate_mbps, t.measure.sent, t.measure.received, t.loss_ppm, t.verdict});
  }
  j["trials"] = trials;
  if (s.trials.size() > max_trials) j["trials_left_out"] = s.trials.size() - max_trials;
  return j;
}

}  // namespace spiral
