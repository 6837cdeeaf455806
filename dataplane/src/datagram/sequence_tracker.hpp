#pragma once
// Exact per-pair accounting of numbered datagrams: unique received, duplicated, reordered and
// the gaps between them, with a ring bitmap over the most recent `window` sequence numbers.
#include <cstdint>
#include <string>
#include <vector>

namespace spiral::datagram {

struct SequenceStats {
  uint64_t received = 0;    // unique datagrams
  uint64_t duplicated = 0;  // a sequence number seen before
  uint64_t reordered = 0;   // arrived after a higher sequence number (filled a gap)
  uint64_t stale = 0;       // older than the window: duplicate or late cannot be told apart
  bool any = false;
  uint64_t min_seq = 0, max_seq = 0;

  // Numbers between the lowest and highest seen that have not arrived (yet).
  uint64_t gaps() const { return any ? (max_seq - min_seq + 1) - received : 0; }
};

enum class Arrival { fresh, late, duplicate, stale };

class SequenceTracker {
 public:
  // 2^window_log2 sequence numbers of history; the default (2^20) is 128 KiB.
  explicit SequenceTracker(unsigned window_log2 = 20);

  Arrival observe(uint64_t seq);
  const SequenceStats& stats() const { return stats_; }

 private:
  bool test(uint64_t seq) const { return bits_[(seq & mask_) >> 6] >> (seq & 63) & 1; }
  void set(uint64_t seq) { bits_[(seq & mask_) >> 6] |= uint64_t{1} << (seq & 63); }
  void clear_range(uint64_t from, uint64_t to);  // [from, to]

  uint64_t window_;
  uint64_t mask_;
  std::vector<uint64_t> bits_;
  SequenceStats stats_;
};

// Loss over a window whose datagrams the sender numbered first..last and counted `sender_count`:
// never seen before the lowest arrival (head), between arrivals (gaps), after the highest (tail).
struct LossAccount {
  uint64_t sent = 0, received = 0, lost = 0;
  uint64_t head = 0, gaps = 0, tail = 0;
  std::string problem;  // empty when sent == received + lost and both sides agree on the range
};

LossAccount account_loss(const SequenceStats& rx, bool sent_any, uint64_t first, uint64_t last,
                         uint64_t sender_count);

}  // namespace spiral::datagram
