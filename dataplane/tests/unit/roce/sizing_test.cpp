#include "transports/roce/sizing.hpp"

#include <gtest/gtest.h>

namespace spiral::roce {
namespace {

RdmaOptions options(RdmaOptions::Verb verb, uint32_t tx = 0, uint32_t rx = 0, bool verify = false) {
  RdmaOptions o;
  o.verb = verb;
  o.tx_depth = tx;
  o.rx_depth = rx;
  o.verify_payload = verify;
  return o;
}

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

TEST(Sizing, AutoWindowsShrinkAsMessagesGrow) {
  EXPECT_EQ(auto_tx_depth(4 * KiB), 128u);  // op-rate bound: many in flight
  EXPECT_EQ(auto_tx_depth(64 * KiB), 128u);
  EXPECT_EQ(auto_tx_depth(1 * MiB), 16u);   // 16 MiB in flight
  EXPECT_EQ(auto_tx_depth(8 * MiB), 2u);    // never fewer than two: one on the wire, one queued
  EXPECT_EQ(auto_tx_depth(64 * MiB), 2u);
  EXPECT_EQ(auto_rx_depth(4 * KiB), 256u);  // twice the sender's
  EXPECT_EQ(auto_rx_depth(8 * MiB), 4u);
}

TEST(Sizing, OperationsShareTwoSlotsUnlessEachIsChecked) {
  QueueShape big = requester_shape(options(RdmaOptions::Verb::send, 128), 8 * MiB);
  EXPECT_EQ(big.tx_window, 128u);  // 128 in flight from two slots, as perftest does
  EXPECT_EQ(big.tx_slots, 2u);
  QueueShape checked = requester_shape(options(RdmaOptions::Verb::send, 128, 0, true), 8 * MiB);
  EXPECT_EQ(checked.tx_slots, 8u);   // 64 MiB, the budget
  EXPECT_EQ(checked.tx_window, 8u);  // verify_payload: one slot per operation in flight
  EXPECT_EQ(checked.signal_every, 2u);
  QueueShape small = responder_shape(options(RdmaOptions::Verb::send, 0, 0, true), 4 * KiB);
  EXPECT_EQ(small.rx_slots, 256u);   // every posted receive its own slot
  EXPECT_EQ(responder_shape(options(RdmaOptions::Verb::send), 4 * KiB).rx_slots, 2u);
}

TEST(Sizing, AGpuWorkloadKeepsEachReceivedMessageInItsOwnSlot) {
  // the server copies each message out after its completion: nothing may land on it before
  QueueShape gpu = responder_shape(options(RdmaOptions::Verb::send), 4 * KiB, /*keep_bytes=*/true);
  EXPECT_EQ(gpu.rx_slots, 256u);
  EXPECT_EQ(gpu.rx_window, 256u);
  QueueShape write = responder_shape(options(RdmaOptions::Verb::write, 0, 16), 64 * KiB, true);
  EXPECT_EQ(write.rx_slots, 17u);
}

TEST(Sizing, WriteTargetsKeepOneSpareSlot) {
  QueueShape s = responder_shape(options(RdmaOptions::Verb::write, 0, 16, true), 64 * KiB);
  EXPECT_EQ(s.rx_window, 16u);
  EXPECT_EQ(s.rx_slots, 17u);
  QueueShape tight = responder_shape(options(RdmaOptions::Verb::write, 0, 16, true), 32 * MiB);
  EXPECT_EQ(tight.rx_slots, 2u);   // the budget holds two 32 MiB slots
  EXPECT_EQ(tight.rx_window, 1u);  // ... so one write in flight
}

TEST(Sizing, ReadNeedsNoReceives) {
  QueueShape server = responder_shape(options(RdmaOptions::Verb::read), 1 * MiB);
  EXPECT_EQ(server.rx_window, 0u);
  EXPECT_GT(server.rx_slots, 0u);
  QueueShape client = requester_shape(options(RdmaOptions::Verb::read, 32), 1 * MiB);
  Window w = effective_window(options(RdmaOptions::Verb::read, 32), client, 0);
  EXPECT_EQ(w.in_flight, 32u);  // the peer's receive window does not bound reads
}

TEST(Sizing, SendsNeverOutrunThePostedReceives) {
  const RdmaOptions o = options(RdmaOptions::Verb::send, 128);
  Window w = effective_window(o, requester_shape(o, 4 * KiB), 40);
  EXPECT_EQ(w.in_flight, 40u);
  EXPECT_EQ(w.signal_every, 10u);
}

TEST(Sizing, SignalIntervalIsAQuarterOfTheWindow) {
  EXPECT_EQ(signal_interval(1), 1u);
  EXPECT_EQ(signal_interval(2), 1u);
  EXPECT_EQ(signal_interval(128), 32u);
  EXPECT_EQ(signal_interval(8192), 64u);
}

TEST(Sizing, LatencyKeepsOneMessageInFlight) {
  RdmaOptions o = options(RdmaOptions::Verb::send, 64, 0);
  o.mode = RdmaOptions::Mode::latency;
  QueueShape client = requester_shape(o, 4 * KiB);
  EXPECT_EQ(client.tx_window, 1u);
  EXPECT_EQ(client.rx_window, kLatencyRxDepth);
  EXPECT_EQ(effective_window(o, client, 1).in_flight, 1u);
  QueueShape server = responder_shape(o, 4 * KiB);
  EXPECT_EQ(server.tx_slots, 1u);  // the echo
  EXPECT_EQ(server.rx_slots, 1u);
}

TEST(Sizing, SlotsArePageAligned) {
  EXPECT_EQ(slot_stride(1), 4096u);
  EXPECT_EQ(slot_stride(4096), 4096u);
  EXPECT_EQ(slot_stride(4097), 8192u);
  EXPECT_EQ(slot_stride(8 * MiB), 8 * MiB);
}

}  // namespace
}  // namespace spiral::roce
