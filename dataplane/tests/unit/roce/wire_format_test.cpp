// What crosses between client and server: the immediate's tag, the payload pattern and the
// queue pair description.
#include <gtest/gtest.h>

#include <vector>

#include "sys/errors.hpp"
#include "transports/roce/pattern.hpp"
#include "transports/roce/peer_info.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {
namespace {

TEST(Tag, CarriesPhaseAndSequence) {
  const uint32_t t = make_tag(Phase::measure, 12345);
  EXPECT_EQ(tag_phase_index(t), 1u);
  EXPECT_EQ(tag_seq(t), 12345u);
  EXPECT_TRUE(tag_follows(t, 12345));
  EXPECT_FALSE(tag_follows(t, 12346));
  EXPECT_EQ(tag_phase_index(make_tag(Phase::drain, 0)), 2u);
}

TEST(Tag, SequenceWrapsAt2To30) {
  const uint64_t seq = (uint64_t{1} << 30) + 7;
  EXPECT_EQ(tag_seq(make_tag(Phase::warmup, seq)), 7u);
  EXPECT_TRUE(tag_follows(make_tag(Phase::warmup, seq), seq));
}

TEST(Pattern, EveryByteCounts) {
  for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{4095}, size_t{65536}}) {
    std::vector<char> buf(n);
    const uint64_t seed = pattern_seed(0, message_key(42));
    fill_pattern(buf.data(), n, seed);
    EXPECT_TRUE(check_pattern(buf.data(), n, seed)) << n;
    buf[n - 1] ^= 1;  // the last byte, in the tail or a whole word
    EXPECT_FALSE(check_pattern(buf.data(), n, seed)) << n;
    buf[n - 1] ^= 1;
    buf[0] ^= 0x80;
    EXPECT_FALSE(check_pattern(buf.data(), n, seed)) << n;
  }
}

TEST(Pattern, StaleMisplacedOrForeignMessagesFail) {
  std::vector<char> buf(4096);
  fill_pattern(buf.data(), buf.size(), pattern_seed(0, message_key(7)));
  EXPECT_FALSE(check_pattern(buf.data(), buf.size(), pattern_seed(0, message_key(8))));  // stale
  EXPECT_FALSE(check_pattern(buf.data(), buf.size(), pattern_seed(1, message_key(7))));  // other queue pair
  EXPECT_FALSE(check_pattern(buf.data(), buf.size(), pattern_seed(0, reply_key(7))));    // the echo of it
  poison(buf.data(), buf.size());
  EXPECT_FALSE(check_pattern(buf.data(), buf.size(), pattern_seed(0, read_slot_key(0))));
}

PeerInfo sample_peer() {
  PeerInfo p;
  p.queue = 3;
  p.verb = "write";
  p.mode = "bandwidth";
  p.payload_bytes = 65536;
  p.qp_num = 0x11;
  p.psn = 0xabcdef;
  p.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1};
  p.mtu_bytes = 4096;
  p.addr = 0x7f0000001000;
  p.rkey = 0x1234;
  p.slots = 257;
  p.slot_stride = 65536;
  p.rx_window = 256;
  return p;
}

TEST(PeerInfo, RoundTripsThroughItsMessage) {
  const PeerInfo p = sample_peer();
  const nlohmann::json m = to_message(p);
  EXPECT_EQ(m["type"], "qp");
  const PeerInfo back = peer_from_message(nlohmann::json::parse(m.dump()));
  EXPECT_EQ(back.qp_num, p.qp_num);
  EXPECT_EQ(back.psn, p.psn);
  EXPECT_EQ(back.gid, p.gid);
  EXPECT_EQ(back.addr, p.addr);
  EXPECT_EQ(back.rkey, p.rkey);
  EXPECT_EQ(back.slots, p.slots);
  EXPECT_EQ(back.slot_stride, p.slot_stride);
  EXPECT_EQ(back.rx_window, p.rx_window);
  EXPECT_EQ(gid_text(back.gid), "::ffff:10.99.0.1");
}

TEST(PeerInfo, MismatchesAreNamed) {
  PeerInfo server = sample_peer(), client = sample_peer();
  EXPECT_EQ(peer_mismatch(server, client), "");
  client.verb = "send";
  EXPECT_EQ(peer_mismatch(server, client), "verb is \"send\" on the client, \"write\" on the server");
  client = sample_peer();
  client.verify_payload = true;
  EXPECT_EQ(peer_mismatch(server, client), "verify_payload is true on the client, false on the server");
}

TEST(PeerInfo, MalformedDescriptionsAreRunFailures) {
  nlohmann::json m = to_message(sample_peer());
  m.erase("rkey");
  EXPECT_THROW(peer_from_message(m), RunFailure);
  m = to_message(sample_peer());
  m["gid"] = "zz";
  EXPECT_THROW(peer_from_message(m), RunFailure);
}

}  // namespace
}  // namespace spiral::roce
