#include "datagram/sequence_tracker.hpp"

#include <algorithm>

namespace spiral::datagram {

SequenceTracker::SequenceTracker(unsigned window_log2)
    : window_(uint64_t{1} << std::max(window_log2, 6u)), mask_(window_ - 1), bits_(window_ / 64, 0) {}

void SequenceTracker::clear_range(uint64_t from, uint64_t to) {
  if (to - from + 1 >= window_) {
    std::fill(bits_.begin(), bits_.end(), 0);
    return;
  }
  for (uint64_t s = from; s <= to;) {
    if ((s & 63) == 0 && to - s >= 63) {  // whole word
      bits_[(s & mask_) >> 6] = 0;
      s += 64;
    } else {
      bits_[(s & mask_) >> 6] &= ~(uint64_t{1} << (s & 63));
      ++s;
    }
  }
}

Arrival SequenceTracker::observe(uint64_t seq) {
  if (!stats_.any) {
    stats_.any = true;
    stats_.min_seq = stats_.max_seq = seq;
    set(seq);
    stats_.received = 1;
    return Arrival::fresh;
  }
  if (seq == stats_.max_seq + 1) {  // in order, the common case: its bit is the one to reuse
    stats_.max_seq = seq;
    set(seq);
    ++stats_.received;
    return Arrival::fresh;
  }
  if (seq > stats_.max_seq) {
    // The bits of the numbers we pass belong to seq - window and older: forget them.
    clear_range(stats_.max_seq + 1, seq);
    stats_.max_seq = seq;
    set(seq);
    ++stats_.received;
    return Arrival::fresh;
  }
  if (stats_.max_seq - seq >= window_) {
    ++stats_.stale;
    return Arrival::stale;
  }
  if (test(seq)) {
    ++stats_.duplicated;
    return Arrival::duplicate;
  }
  set(seq);
  ++stats_.received;
  ++stats_.reordered;
  stats_.min_seq = std::min(stats_.min_seq, seq);
  return Arrival::late;
}

LossAccount account_loss(const SequenceStats& rx, bool sent_any, uint64_t first, uint64_t last,
                         uint64_t sender_count) {
  LossAccount a;
  a.sent = sender_count;
  a.received = rx.received;
  const uint64_t numbered = sent_any ? last - first + 1 : 0;
  if (numbered != sender_count) {
    a.problem = "sender counted " + std::to_string(sender_count) + " datagrams but numbered " +
                std::to_string(numbered);
    return a;
  }
  if (rx.stale) {
    a.problem = std::to_string(rx.stale) + " datagrams arrived too late to account for";
    return a;
  }
  if (rx.any && (!sent_any || rx.min_seq < first || rx.max_seq > last)) {
    a.problem = "receiver saw sequence numbers " + std::to_string(rx.min_seq) + ".." + std::to_string(rx.max_seq) +
                " outside the sender's window";
    return a;
  }
  if (rx.any) {
    a.head = rx.min_seq - first;
    a.gaps = rx.gaps();
    a.tail = last - rx.max_seq;
  } else {
    a.head = numbered;
  }
  a.lost = a.head + a.gaps + a.tail;
  if (a.received + a.lost != a.sent)
    a.problem = "sent " + std::to_string(a.sent) + " != received " + std::to_string(a.received) + " + lost " +
                std::to_string(a.lost);
  return a;
}

}  // namespace spiral::datagram
