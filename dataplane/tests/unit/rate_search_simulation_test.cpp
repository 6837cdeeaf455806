// The rate search (search/rate_search.cpp) against a SIMULATED link, not a real one: a
// SimulatedLink has a known capacity, optional per-trial noise on it, and loses everything
// offered above it. The real-wire tests are tests/integration/ndr_*.sh.
#include "search/rate_search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace spiral {
namespace {

constexpr uint64_t kPacketBits = 8000 * 8;

// A simulation of a link: each trial's capacity is capacity_mbps x (1 + noise x u), u uniform in
// [-1, 1]; an unpaced sender offers unpaced_mbps; what is offered above the capacity is lost.
struct SimulatedLink {
  explicit SimulatedLink(double capacity, double noise_fraction = 0) : capacity_mbps(capacity), noise(noise_fraction) {}
  double capacity_mbps;
  double noise;               // fraction of the capacity
  double unpaced_mbps = 25'000;
  uint64_t floor_ppm = 0;     // loss at every rate (a link that never holds)
  std::mt19937_64 rng{42};
  uint32_t trials = 0;

  TrialMeasure operator()(uint64_t offered, uint64_t duration_ms, TrialPurpose) {
    ++trials;
    const double rate = offered ? double(offered) : unpaced_mbps;
    const double capacity = capacity_mbps * (1 + noise * std::uniform_real_distribution<double>(-1, 1)(rng));
    TrialMeasure m;
    m.sent = static_cast<uint64_t>(rate * 1e6 * double(duration_ms) / 1000 / kPacketBits);
    const double through = std::min(rate, capacity);
    m.received = static_cast<uint64_t>(through * 1e6 * double(duration_ms) / 1000 / kPacketBits);
    m.received -= std::min(m.received, m.sent * floor_ppm / 1'000'000 + (floor_ppm ? 1 : 0));
    m.lost = m.sent - m.received;
    m.tx_mbps = static_cast<int64_t>(rate);
    m.rx_mbps = static_cast<int64_t>(double(m.received) * kPacketBits * 1000 / double(duration_ms) / 1e6);
    return m;
  }
};

TrialRunner runner(SimulatedLink& link) {
  return [&link](uint64_t r, uint64_t d, TrialPurpose p) { return link(r, d, p); };
}

RateSearchSpec spec_of(SearchMethod method) {
  RateSearchSpec s;
  s.lower_mbps = 100;
  s.upper_mbps = 0;  // measured by an unpaced first trial
  s.trial_ms = 1000;
  s.resolution_percent = 1;
  s.method = method;
  return s;
}

// The lowest lossy search trial above the NDR: the top of the final bracket.
uint64_t bracket_top(const SearchOutcome& o) {
  uint64_t top = UINT64_MAX;
  for (const Trial& t : o.trials)
    if (t.purpose != TrialPurpose::verify && t.verdict != "pass" && t.rate_mbps > *o.ndr_mbps) top = std::min(top, t.rate_mbps);
  return top;
}

class SimulatedLinkSearch : public ::testing::TestWithParam<SearchMethod> {};

TEST_P(SimulatedLinkSearch, ConvergesToTheCapacityWithinTheResolution) {
  SimulatedLink link{9'400};
  SearchOutcome o = search_rate(spec_of(GetParam()), 5000, runner(link));
  ASSERT_TRUE(o.ndr_mbps) << "no NDR found";
  EXPECT_EQ(o.upper_mbps, 25'000u);
  EXPECT_EQ(o.resolution_mbps, 250u);
  EXPECT_LE(*o.ndr_mbps, 9'400u);
  EXPECT_GE(*o.ndr_mbps, 9'400u - o.resolution_mbps);
  EXPECT_TRUE(o.verified);
  ASSERT_TRUE(o.verify_trial);
  EXPECT_EQ(o.trials.back().purpose, TrialPurpose::verify);
  EXPECT_EQ(o.trials.back().duration_ms, 5000u);
  EXPECT_EQ(o.trials.back().offered_mbps, *o.ndr_mbps);
  EXPECT_FALSE(o.ndr_below_lower);
  EXPECT_FALSE(o.ndr_at_upper);
}

TEST_P(SimulatedLinkSearch, StopsWhenTheBracketIsAtMostTheResolution) {
  SimulatedLink link{9'400};
  RateSearchSpec spec = spec_of(GetParam());
  spec.resolution_percent = 0;
  spec.resolution_mbps = 40;
  SearchOutcome o = search_rate(spec, 1000, runner(link));
  ASSERT_TRUE(o.ndr_mbps);
  EXPECT_LE(bracket_top(o) - *o.ndr_mbps, 40u);
  // Bisection of [100, 25000] to 40 Mb/s needs ceil(log2(24900 / 40)) = 10 probes; the upper
  // trial and the verification come on top. One more probe would mean it did not stop.
  EXPECT_LE(o.trials.size(), 12u);
  for (const Trial& t : o.trials) EXPECT_EQ(t.measure.sent, t.measure.received + t.measure.lost);
}

TEST_P(SimulatedLinkSearch, FindsTheRateOfANoisyLinkWithinNoiseAndResolution) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SimulatedLink link{9'400, 0.003};
    link.rng.seed(seed);
    SearchOutcome o = search_rate(spec_of(GetParam()), 1000, runner(link));
    ASSERT_TRUE(o.ndr_mbps) << "seed " << seed;
    const double slack = 9'400 * 0.003;
    EXPECT_LE(double(*o.ndr_mbps), 9'400 + slack) << "seed " << seed;
    EXPECT_GE(double(*o.ndr_mbps), 9'400 - slack - double(o.resolution_mbps)) << "seed " << seed;
  }
}

TEST_P(SimulatedLinkSearch, ALinkThatLosesAtEveryRateReportsTheNdrBelowTheLowerBound) {
  SimulatedLink link{1e9};
  link.floor_ppm = 10;
  SearchOutcome o = search_rate(spec_of(GetParam()), 1000, runner(link));
  EXPECT_FALSE(o.ndr_mbps);
  EXPECT_TRUE(o.ndr_below_lower);
  EXPECT_FALSE(o.verify_trial) << "nothing to verify";
  ASSERT_FALSE(o.trials.empty());
  EXPECT_EQ(o.trials.back().purpose, TrialPurpose::lower);
  EXPECT_EQ(o.trials.back().rate_mbps, 100u);
  EXPECT_EQ(o.trials.back().verdict, "loss");
  EXPECT_TRUE(o.failure.empty());
}

TEST_P(SimulatedLinkSearch, ALinkThatNeverLosesReportsTheNdrAtTheUpperBound) {
  SimulatedLink link{1e9};
  RateSearchSpec spec = spec_of(GetParam());
  spec.upper_mbps = 20'000;
  SearchOutcome o = search_rate(spec, 3000, runner(link));
  ASSERT_TRUE(o.ndr_mbps);
  EXPECT_EQ(*o.ndr_mbps, 20'000u);
  EXPECT_TRUE(o.ndr_at_upper);
  EXPECT_TRUE(o.verified);
  EXPECT_EQ(o.trials.size(), 2u) << "the upper bound and its verification";
}

TEST_P(SimulatedLinkSearch, PdrAllowsTheToleranceAboveTheNdr) {
  SimulatedLink link{9'400};
  RateSearchSpec spec = spec_of(GetParam());
  spec.resolution_percent = 0;
  spec.resolution_mbps = 10;
  spec.pdr_ppm = 50'000;  // 5 %: the PDR is where (rate - 9400) / rate = 0.05, 9894 Mb/s
  SearchOutcome o = search_rate(spec, 1000, runner(link));
  ASSERT_TRUE(o.ndr_mbps && o.pdr_mbps);
  EXPECT_GE(*o.pdr_mbps, *o.ndr_mbps);
  EXPECT_NEAR(double(*o.pdr_mbps), 9'400 / 0.95, 11.0);
  EXPECT_NEAR(double(*o.ndr_mbps), 9'400, 11.0);
  EXPECT_EQ(o.trials.back().purpose, TrialPurpose::verify);
  EXPECT_EQ(o.trials.back().offered_mbps, *o.ndr_mbps) << "the verification is at the NDR";
}

INSTANTIATE_TEST_SUITE_P(Methods, SimulatedLinkSearch,
                         ::testing::Values(SearchMethod::binary, SearchMethod::receive_rate),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(SimulatedLinkSearchMethods, ReceiveRateFindsTheBinaryRateInFewerTrials) {
  for (double capacity : {730.0, 4'100.0, 9'400.0, 18'000.0}) {
    SimulatedLink a{capacity}, b{capacity};
    SearchOutcome binary = search_rate(spec_of(SearchMethod::binary), 1000, runner(a));
    SearchOutcome smart = search_rate(spec_of(SearchMethod::receive_rate), 1000, runner(b));
    ASSERT_TRUE(binary.ndr_mbps && smart.ndr_mbps);
    const double apart = std::fabs(double(*binary.ndr_mbps) - double(*smart.ndr_mbps));
    EXPECT_LE(apart, double(binary.resolution_mbps)) << "capacity " << capacity;
    EXPECT_LT(smart.search_trials(), binary.search_trials()) << "capacity " << capacity;
    EXPECT_LE(smart.search_trials(), 4u) << "capacity " << capacity;
  }
}

TEST(SimulatedLinkSearchMethods, AFailedTrialStopsTheSearchWithItsReason) {
  uint32_t calls = 0;
  SearchOutcome o = search_rate(spec_of(SearchMethod::binary), 1000, [&](uint64_t, uint64_t, TrialPurpose) {
    TrialMeasure m;
    if (++calls == 2) {
      m.failed = true;
      m.reason = "receiver: queue 0: boom";
      return m;
    }
    m.sent = 1000;
    m.received = 900;
    m.lost = 100;
    m.tx_mbps = 5000;
    m.rx_mbps = 4500;
    return m;
  });
  EXPECT_EQ(calls, 2u);
  EXPECT_FALSE(o.ndr_mbps);
  EXPECT_FALSE(o.ndr_below_lower) << "a failure is not a finding";
  EXPECT_NE(o.failure.find("boom"), std::string::npos) << o.failure;
  EXPECT_EQ(o.trials.back().verdict, "failed");
}

TEST(SimulatedLinkSearchMethods, AnUnpacedFirstTrialThatSentNothingStopsTheSearch) {
  uint32_t calls = 0;
  SearchOutcome o = search_rate(spec_of(SearchMethod::receive_rate), 1000, [&](uint64_t, uint64_t, TrialPurpose) {
    ++calls;
    TrialMeasure m;
    m.counts = false;
    m.reason = "no bytes sent in the measured window";
    return m;
  });
  EXPECT_EQ(calls, 1u);
  EXPECT_FALSE(o.ndr_mbps);
  EXPECT_FALSE(o.ndr_below_lower);
  EXPECT_NE(o.failure.find("sent nothing"), std::string::npos) << o.failure;
}

TEST(SimulatedLinkSearchMethods, ATrialWhoseSenderMissedTheRateDoesNotCountAsHeld) {
  SimulatedLink link{1e9};
  RateSearchSpec spec = spec_of(SearchMethod::binary);
  spec.upper_mbps = 10'000;
  SearchOutcome o = search_rate(spec, 1000, [&](uint64_t r, uint64_t d, TrialPurpose p) {
    TrialMeasure m = link(r, d, p);
    if (r > 6'000) {  // the sender cannot offer more than 6000 Mb/s: lossless but not held
      m.counts = false;
      m.reason = "sender reached 6000 of the target";
    }
    return m;
  });
  ASSERT_TRUE(o.ndr_mbps);
  EXPECT_LE(*o.ndr_mbps, 6'000u);
  EXPECT_GE(*o.ndr_mbps, 6'000u - o.resolution_mbps);
  EXPECT_EQ(o.trials.front().verdict, "not_held");
}

}  // namespace
}  // namespace spiral
