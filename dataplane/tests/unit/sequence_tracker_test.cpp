#include "datagram/sequence_tracker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace spiral::datagram {
namespace {

SequenceStats feed(std::initializer_list<uint64_t> seqs, unsigned window_log2 = 20) {
  SequenceTracker t(window_log2);
  for (uint64_t s : seqs) t.observe(s);
  return t.stats();
}

TEST(SequenceTracker, InOrder) {
  SequenceTracker t;
  for (uint64_t s = 0; s < 1000; ++s) EXPECT_EQ(t.observe(s), Arrival::fresh);
  EXPECT_EQ(t.stats().received, 1000u);
  EXPECT_EQ(t.stats().gaps(), 0u);
  EXPECT_EQ(t.stats().reordered + t.stats().duplicated + t.stats().stale, 0u);
}

TEST(SequenceTracker, GapsAreCountedUntilFilled) {
  auto s = feed({0, 1, 2, 5, 6});
  EXPECT_EQ(s.received, 5u);
  EXPECT_EQ(s.gaps(), 2u);
  s = feed({0, 1, 3, 2});
  EXPECT_EQ(s.gaps(), 0u);
  EXPECT_EQ(s.reordered, 1u);
}

TEST(SequenceTracker, DuplicatesAreNotReceivedTwice) {
  auto s = feed({0, 1, 1, 2, 0});
  EXPECT_EQ(s.received, 3u);
  EXPECT_EQ(s.duplicated, 2u);
  s = feed({0, 2, 1, 1});  // a late arrival, then its copy
  EXPECT_EQ(s.reordered, 1u);
  EXPECT_EQ(s.duplicated, 1u);
  EXPECT_EQ(s.received, 3u);
}

TEST(SequenceTracker, LateArrivalBelowTheFirstLowersTheMinimum) {
  auto s = feed({1000, 1001, 997});
  EXPECT_EQ(s.min_seq, 997u);
  EXPECT_EQ(s.max_seq, 1001u);
  EXPECT_EQ(s.gaps(), 2u);  // 998, 999
  EXPECT_EQ(s.reordered, 1u);
}

TEST(SequenceTracker, WindowEdges) {
  // Window of 64: a jump beyond it forgets everything, but what was never seen is still "late".
  auto s = feed({0, 100, 50}, 6);
  EXPECT_EQ(s.received, 3u);
  EXPECT_EQ(s.reordered, 1u);
  s = feed({0, 100, 10}, 6);  // 90 behind the newest: cannot tell duplicate from late
  EXPECT_EQ(s.stale, 1u);
  EXPECT_EQ(s.received, 2u);
  SequenceTracker t(6);
  for (uint64_t i = 0; i <= 200; ++i) t.observe(i);
  EXPECT_EQ(t.observe(150), Arrival::duplicate);  // ring bit survived the wrap
  EXPECT_EQ(t.observe(137), Arrival::duplicate);  // 63 behind: still inside
  EXPECT_EQ(t.observe(136), Arrival::stale);      // 64 behind: outside
}

// Random loss, duplication and local reordering against a ground truth kept in a std::set.
TEST(SequenceTracker, MatchesGroundTruthUnderRandomImpairment) {
  std::mt19937_64 rng(1234);
  std::bernoulli_distribution drop(0.05), dup(0.02), swap(0.1);
  std::vector<uint64_t> wire;
  const uint64_t first = 5000, last = 5000 + 100'000 - 1;
  for (uint64_t s = first; s <= last; ++s) {
    if (drop(rng)) continue;
    wire.push_back(s);
    if (dup(rng)) wire.push_back(s);
  }
  for (size_t i = 0; i + 8 < wire.size(); ++i)
    if (swap(rng)) std::swap(wire[i], wire[i + 1 + rng() % 8]);

  SequenceTracker t;
  std::set<uint64_t> seen;
  uint64_t duplicates = 0;
  for (uint64_t s : wire) {
    t.observe(s);
    if (!seen.insert(s).second) ++duplicates;
  }
  const SequenceStats& st = t.stats();
  EXPECT_EQ(st.received, seen.size());
  EXPECT_EQ(st.duplicated, duplicates);
  EXPECT_GT(st.reordered, 0u);
  EXPECT_EQ(st.stale, 0u);
  auto loss = account_loss(st, true, first, last, last - first + 1);
  EXPECT_EQ(loss.problem, "");
  EXPECT_EQ(loss.lost, (last - first + 1) - seen.size());
  EXPECT_EQ(loss.received + loss.lost, loss.sent);
}

TEST(AccountLoss, HeadGapsAndTail) {
  SequenceTracker t;
  // Sent 100..199; arrived 106..190 except the multiples of 15.
  for (uint64_t s = 106; s <= 190; ++s)
    if (s % 15 != 0) t.observe(s);
  auto loss = account_loss(t.stats(), true, 100, 199, 100);
  EXPECT_EQ(loss.problem, "");
  EXPECT_EQ(loss.head, 6u);   // 100..105
  EXPECT_EQ(loss.tail, 9u);   // 191..199
  EXPECT_EQ(loss.gaps, 5u);   // 120, 135, 150, 165, 180
  EXPECT_EQ(loss.lost, 20u);
  EXPECT_EQ(loss.received, 80u);
}

TEST(AccountLoss, NothingArrived) {
  auto loss = account_loss(SequenceStats{}, true, 0, 9, 10);
  EXPECT_EQ(loss.problem, "");
  EXPECT_EQ(loss.lost, 10u);
}

TEST(AccountLoss, InconsistentCountersAreReported) {
  SequenceTracker t;
  for (uint64_t s = 0; s < 10; ++s) t.observe(s);
  EXPECT_EQ(account_loss(t.stats(), true, 0, 9, 11).problem, "sender counted 11 datagrams but numbered 10");
  EXPECT_EQ(account_loss(t.stats(), true, 2, 9, 8).problem,
            "receiver saw sequence numbers 0..9 outside the sender's window");
  EXPECT_EQ(account_loss(t.stats(), false, 0, 0, 0).problem,
            "receiver saw sequence numbers 0..9 outside the sender's window");
  SequenceStats stale = t.stats();
  stale.stale = 3;
  EXPECT_EQ(account_loss(stale, true, 0, 9, 10).problem, "3 datagrams arrived too late to account for");
}

}  // namespace
}  // namespace spiral::datagram
