#pragma once
// The 32-bit immediate every roce SEND and WRITE carries: the sender's phase in the top two bits
// and the message's sequence number (mod 2^30) below. The receiver counts each message into the
// sender's phase, as UDP does with its header flag, and checks the order RC promises.
#include <cstdint>

#include "engine/phase.hpp"

namespace spiral::roce {

constexpr uint32_t kTagSeqBits = 30;
constexpr uint32_t kTagSeqMask = (1u << kTagSeqBits) - 1;

inline uint32_t make_tag(Phase phase, uint64_t seq) {
  return (static_cast<uint32_t>(index(phase)) << kTagSeqBits) | static_cast<uint32_t>(seq & kTagSeqMask);
}
// 0..2 are phases; 3 never comes from a sender of ours.
inline uint32_t tag_phase_index(uint32_t tag) { return tag >> kTagSeqBits; }
inline uint32_t tag_seq(uint32_t tag) { return tag & kTagSeqMask; }
inline bool tag_follows(uint32_t tag, uint64_t expected_seq) { return tag_seq(tag) == (expected_seq & kTagSeqMask); }

}  // namespace spiral::roce
