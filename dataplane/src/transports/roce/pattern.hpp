#pragma once
// The bytes verify_payload writes into a message and checks where it lands. Each 64-bit word
// follows from a seed (queue pair and sequence number, or slot) and its position, so a stale,
// misplaced, torn or foreign message fails the check. Byte order does not matter: both ends
// are the same binary on the same kind of host.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace spiral::roce {

// splitmix64 of (queue pair, key): distinct keys give unrelated words.
inline uint64_t pattern_seed(uint32_t queue_pair, uint64_t key) {
  uint64_t z = key + 0x9E3779B97F4A7C15ull * (uint64_t{queue_pair} + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Keys: message `seq` of a stream, the reply to ping `seq`, and the fixed content of a read slot.
inline uint64_t message_key(uint64_t seq) { return seq; }
inline uint64_t reply_key(uint64_t seq) { return seq | (1ull << 63); }
inline uint64_t read_slot_key(uint64_t slot) { return slot | (1ull << 62); }

inline uint64_t pattern_word(uint64_t seed, size_t i) { return seed + 0xD1B54A32D192ED03ull * (i + 1); }

inline void fill_pattern(char* p, size_t n, uint64_t seed) {
  size_t i = 0;
  for (; (i + 1) * 8 <= n; ++i) {
    const uint64_t w = pattern_word(seed, i);
    std::memcpy(p + i * 8, &w, 8);
  }
  if (i * 8 < n) {
    const uint64_t w = pattern_word(seed, i);
    std::memcpy(p + i * 8, &w, n - i * 8);
  }
}

inline bool check_pattern(const char* p, size_t n, uint64_t seed) {
  size_t i = 0;
  for (; (i + 1) * 8 <= n; ++i) {
    uint64_t got;
    std::memcpy(&got, p + i * 8, 8);
    if (got != pattern_word(seed, i)) return false;
  }
  if (i * 8 < n) {
    const uint64_t w = pattern_word(seed, i);
    return std::memcmp(p + i * 8, &w, n - i * 8) == 0;
  }
  return true;
}

// What a read's destination holds before the read lands: never a valid pattern of any slot.
inline void poison(char* p, size_t n) { std::memset(p, 0xA5, n); }

}  // namespace spiral::roce
