#pragma once
// How many operations a queue pair keeps in flight and how much memory it registers, from the
// cell's depths and the message size. A depth of 0 sizes the window to the message: small
// messages get many operations in flight (they are bound by per-operation overhead), large ones
// just enough to keep the wire busy. Without verify_payload the operations in flight share two
// slots, as perftest does (nobody looks at the bytes, and a small working set spares the NIC's
// translation caches and the CPU's); with it, every operation in flight has its own slot, up to
// kSlotBudgetBytes per side and queue pair, and the window shrinks to fit.
#include <cstdint>

#include "config/cell.hpp"
#include "transports/roce/rdma_options.hpp"

namespace spiral::roce {

constexpr uint64_t kInflightBytes = 16ull << 20;    // what an auto-sized window aims to keep in flight
constexpr uint32_t kAutoTxMax = 128, kAutoRxMax = 512;
constexpr uint64_t kSlotBudgetBytes = 64ull << 20;  // verify_payload: per queue pair and side
constexpr uint32_t kSharedSlots = 2;                // without verify_payload
constexpr uint32_t kLatencyRxDepth = 16;
constexpr uint32_t kLatencySignalEvery = 16;

uint32_t auto_tx_depth(uint64_t message_bytes);  // 2..128
uint32_t auto_rx_depth(uint64_t message_bytes);  // 4..512, twice the sender's
uint32_t budget_slots(uint64_t message_bytes);   // >= 2
// Slots for `wanted` operations in flight: each its own (verify) or shared.
uint32_t slots_for(uint32_t wanted, uint64_t message_bytes, bool verify);
uint64_t slot_stride(uint64_t message_bytes);    // message size rounded up to whole pages

// One queue pair's shape on one side. The buffer is tx_slots then rx_slots, each slot_stride.
struct QueueShape {
  uint32_t tx_window = 0;     // operations the requester keeps in flight (before the peer's limit)
  uint32_t rx_window = 0;     // receives kept posted (send, write with immediate, replies)
  uint32_t tx_slots = 0;      // outgoing messages or read destinations
  uint32_t rx_slots = 0;      // incoming messages, write targets or read sources
  uint32_t signal_every = 1;  // every n-th send is signalled
};

QueueShape requester_shape(const RdmaOptions& o, uint64_t message_bytes);  // the client
// The server. keep_bytes: its messages are read after their completion (a GPU workload copies
// them out), so each one in flight needs its own slot, as with verify_payload.
QueueShape responder_shape(const RdmaOptions& o, uint64_t message_bytes, bool keep_bytes = false);

// The requester's window once the responder's receive window is known: never more sends or
// writes in flight than receives posted (reads need none), and the signal interval to match.
struct Window {
  uint32_t in_flight = 1;
  uint32_t signal_every = 1;
};
Window effective_window(const RdmaOptions& o, const QueueShape& requester, uint32_t peer_rx_window);

// Signalled every n-th: at most a quarter of the window, so completions keep the window open.
uint32_t signal_interval(uint32_t window);

}  // namespace spiral::roce
