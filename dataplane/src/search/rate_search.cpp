#include "search/rate_search.hpp"

#include <algorithm>

namespace spiral {

const char* to_string(SearchMethod m) { return m == SearchMethod::binary ? "binary" : "receive_rate"; }

const char* to_string(TrialPurpose p) {
  switch (p) {
    case TrialPurpose::upper: return "upper";
    case TrialPurpose::probe: return "probe";
    case TrialPurpose::lower: return "lower";
    case TrialPurpose::verify: return "verify";
  }
  return "?";
}

uint32_t SearchOutcome::search_trials() const {
  return static_cast<uint32_t>(trials.size()) - (verify_trial ? 1u : 0u);
}

namespace {

__extension__ typedef unsigned __int128 Wide;  // lost x 1e6 exceeds 64 bits past 1.8e13 packets

// Loss within tolerance_ppm, exactly (no rounding of the ppm): lost * 1e6 <= tolerance * sent.
bool holds(const Trial& t, uint64_t tolerance_ppm) {
  const TrialMeasure& m = t.measure;
  if (m.failed || !m.counts || m.sent == 0) return false;
  return Wide{m.lost} * 1'000'000u <= Wide{tolerance_ppm} * m.sent;
}

class Search {
 public:
  Search(const RateSearchSpec& spec, const TrialRunner& run, SearchOutcome& out)
      : spec_(spec), run_(run), out_(out) {}

  // Runs one trial and appends it; false when it failed (the search stops).
  bool trial(uint64_t offered, uint64_t duration_ms, TrialPurpose purpose) {
    Trial t;
    t.index = static_cast<uint32_t>(out_.trials.size());
    t.purpose = purpose;
    t.offered_mbps = offered;
    t.duration_ms = duration_ms;
    t.measure = run_(offered, duration_ms, purpose);
    t.rate_mbps = offered ? offered : static_cast<uint64_t>(std::max<int64_t>(0, t.measure.tx_mbps));
    const TrialMeasure& m = t.measure;
    t.loss_ppm = m.sent ? m.lost * 1'000'000 / m.sent : 1'000'000;
    if (m.failed) t.verdict = "failed";
    else if (!m.counts) t.verdict = "not_held";
    else if (holds(t, 0)) t.verdict = "pass";
    else if (out_.pdr_ppm && holds(t, out_.pdr_ppm)) t.verdict = "pdr";
    else t.verdict = "loss";
    out_.trials.push_back(t);
    if (m.failed) out_.failure = "trial " + std::to_string(t.index) + " at " + std::to_string(offered) + " Mb/s: " + m.reason;
    return !m.failed;
  }

  const Trial& last() const { return out_.trials.back(); }

  // Narrows [highest rate that held, lowest rate above it that did not] to the resolution, for
  // loss within tolerance_ppm, starting from every trial so far. Returns false when a trial failed.
  bool bracket(uint64_t tolerance_ppm, std::optional<uint64_t>& found, bool& below_lower) {
    std::optional<uint64_t> held;
    for (const Trial& t : out_.trials)
      if (t.purpose != TrialPurpose::verify && holds(t, tolerance_ppm)) held = std::max(held.value_or(0), t.rate_mbps);
    uint64_t hi = 0;
    bool have_hi = false;
    std::optional<uint64_t> hint;  // what the receiver got in the lowest lossy trial
    for (const Trial& t : out_.trials) {
      if (t.purpose == TrialPurpose::verify || holds(t, tolerance_ppm) || t.rate_mbps <= held.value_or(0)) continue;
      if (!have_hi || t.rate_mbps < hi) {
        hi = t.rate_mbps;
        have_hi = true;
        hint = t.measure.counts && t.measure.rx_mbps > 0 ? std::optional<uint64_t>(t.measure.rx_mbps) : std::nullopt;
      }
    }
    if (!have_hi) {  // nothing above the best rate failed: the upper bound held
      found = held;
      return true;
    }
    const uint64_t res = out_.resolution_mbps;
    uint64_t lo = held.value_or(out_.lower_mbps);
    uint64_t gallop = held && tolerance_ppm ? res : 0;  // PDR: its rate is usually just above the NDR
    while (hi > lo && hi - lo > res) {
      bool from_hint_or_gallop = false;
      uint64_t probe = lo + (hi - lo) / 2;
      if (spec_.method == SearchMethod::receive_rate) {
        if (hint) {
          const uint64_t p = *hint > res / 2 ? *hint - res / 2 : *hint;
          hint.reset();
          if (p > lo && p < hi) {
            probe = p;
            from_hint_or_gallop = true;
            gallop = 0;
          }
        }
        if (!from_hint_or_gallop && gallop) {
          const uint64_t p = std::min(lo + gallop, probe);
          if (p > lo && p < hi) {
            probe = p;
            from_hint_or_gallop = true;
          }
        }
      }
      if (!trial(probe, spec_.trial_ms, TrialPurpose::probe)) return false;
      if (holds(last(), tolerance_ppm)) {
        lo = probe;
        held = probe;
        if (from_hint_or_gallop) gallop = gallop ? gallop * 2 : res;
      } else {
        hi = probe;
        gallop = 0;
        if (last().measure.counts && last().measure.rx_mbps > 0) hint = static_cast<uint64_t>(last().measure.rx_mbps);
      }
    }
    if (!held) {  // nothing held yet: the lower bound decides between "at lower" and "below lower"
      bool tried = false;
      for (const Trial& t : out_.trials) tried = tried || (t.rate_mbps == out_.lower_mbps && t.purpose != TrialPurpose::verify);
      if (!tried) {
        if (!trial(out_.lower_mbps, spec_.trial_ms, TrialPurpose::lower)) return false;
        if (holds(last(), tolerance_ppm)) held = out_.lower_mbps;
      }
    }
    found = held;
    below_lower = !held;
    return true;
  }

 private:
  const RateSearchSpec& spec_;
  const TrialRunner& run_;
  SearchOutcome& out_;
};

}  // namespace

SearchOutcome search_rate(const RateSearchSpec& spec, uint64_t verify_ms, const TrialRunner& run) {
  SearchOutcome out;
  out.pdr_ppm = spec.pdr_ppm;
  Search s(spec, run, out);
  // The upper bound: given, or what an unpaced sender reaches.
  if (!s.trial(spec.upper_mbps, spec.trial_ms, TrialPurpose::upper)) return out;
  out.upper_mbps = s.last().rate_mbps;
  if (out.upper_mbps == 0) {  // an unpaced trial that sent nothing gives no bound to search below
    out.failure = "trial 0 (unpaced) sent nothing: no upper bound to search below" +
                  (s.last().measure.reason.empty() ? std::string() : " (" + s.last().measure.reason + ")");
    return out;
  }
  out.lower_mbps = std::min(spec.lower_mbps, out.upper_mbps);
  out.resolution_mbps = spec.resolution_mbps
                            ? spec.resolution_mbps
                            : std::max<uint64_t>(1, out.upper_mbps * spec.resolution_percent / 100);
  if (!s.bracket(0, out.ndr_mbps, out.ndr_below_lower)) return out;
  out.ndr_at_upper = out.ndr_mbps && *out.ndr_mbps == out.upper_mbps;
  if (spec.pdr_ppm && !s.bracket(spec.pdr_ppm, out.pdr_mbps, out.pdr_below_lower)) return out;
  if (!out.ndr_mbps) return out;
  out.verify_trial = static_cast<uint32_t>(out.trials.size());
  if (!s.trial(*out.ndr_mbps, verify_ms, TrialPurpose::verify)) return out;
  out.verified = s.last().verdict == "pass";
  return out;
}

}  // namespace spiral
