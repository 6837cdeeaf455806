#include "transports/roce/sizing.hpp"

#include <algorithm>

namespace spiral::roce {

using Verb = RdmaOptions::Verb;
using Mode = RdmaOptions::Mode;

uint32_t auto_tx_depth(uint64_t message_bytes) {
  const uint64_t want = (kInflightBytes + message_bytes - 1) / std::max<uint64_t>(message_bytes, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>(want, 2, kAutoTxMax));
}

uint32_t auto_rx_depth(uint64_t message_bytes) {
  return std::clamp<uint32_t>(2 * auto_tx_depth(message_bytes), 4, kAutoRxMax);
}

uint32_t budget_slots(uint64_t message_bytes) {
  return static_cast<uint32_t>(std::max<uint64_t>(2, kSlotBudgetBytes / slot_stride(message_bytes)));
}

uint64_t slot_stride(uint64_t message_bytes) { return (std::max<uint64_t>(message_bytes, 1) + 4095) / 4096 * 4096; }

uint32_t slots_for(uint32_t wanted, uint64_t message_bytes, bool verify) {
  return std::max<uint32_t>(1, std::min(wanted, verify ? budget_slots(message_bytes) : kSharedSlots));
}

uint32_t signal_interval(uint32_t window) { return std::clamp<uint32_t>(window / 4, 1, 64); }

QueueShape requester_shape(const RdmaOptions& o, uint64_t message_bytes) {
  QueueShape s;
  if (o.mode == Mode::latency) {  // one ping (or read) in flight, its reply in one slot
    s.tx_window = 1;
    s.tx_slots = 1;
    s.rx_window = o.verb == Verb::read ? 0 : (o.rx_depth ? o.rx_depth : kLatencyRxDepth);
    s.rx_slots = o.verb == Verb::read ? 0 : 1;
    s.signal_every = o.verb == Verb::read ? 1 : kLatencySignalEvery;
    return s;
  }
  s.tx_window = o.tx_depth ? o.tx_depth : auto_tx_depth(message_bytes);
  s.tx_slots = slots_for(s.tx_window, message_bytes, o.verify_payload);
  if (o.verify_payload) s.tx_window = std::min(s.tx_window, s.tx_slots);
  s.signal_every = signal_interval(s.tx_window);
  return s;
}

QueueShape responder_shape(const RdmaOptions& o, uint64_t message_bytes, bool keep_bytes) {
  QueueShape s;
  if (o.mode == Mode::latency) {
    s.rx_slots = 1;
    if (o.verb != Verb::read) {  // echoes each ping
      s.tx_window = 1;
      s.tx_slots = 1;
      s.rx_window = o.rx_depth ? o.rx_depth : kLatencyRxDepth;
      s.signal_every = kLatencySignalEvery;
    }
    return s;
  }
  const bool verify = o.verify_payload || keep_bytes;
  switch (o.verb) {
    case Verb::send:
      s.rx_window = o.rx_depth ? o.rx_depth : auto_rx_depth(message_bytes);
      s.rx_slots = slots_for(s.rx_window, message_bytes, verify);
      if (verify) s.rx_window = std::min(s.rx_window, s.rx_slots);
      break;
    case Verb::write:
      // A write lands before the receive it consumes is checked; one spare slot keeps the
      // newest write off a slot still being checked (see roce_engine.cpp).
      s.rx_window = o.rx_depth ? o.rx_depth : auto_rx_depth(message_bytes);
      s.rx_slots = slots_for(s.rx_window + 1, message_bytes, verify);
      if (verify) s.rx_window = std::min(s.rx_window, s.rx_slots - 1);
      break;
    case Verb::read:  // the memory the client reads from; receives are not involved
      s.rx_slots = slots_for(auto_rx_depth(message_bytes), message_bytes, verify);
      break;
  }
  return s;
}

Window effective_window(const RdmaOptions& o, const QueueShape& requester, uint32_t peer_rx_window) {
  Window w;
  if (o.mode == Mode::latency) {
    w.in_flight = 1;
    w.signal_every = requester.signal_every;
    return w;
  }
  w.in_flight = requester.tx_window;
  if (o.verb != Verb::read) w.in_flight = std::max<uint32_t>(1, std::min(w.in_flight, peer_rx_window));
  w.signal_every = signal_interval(w.in_flight);
  return w;
}

}  // namespace spiral::roce
