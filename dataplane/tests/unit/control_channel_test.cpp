#include "control/channel.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys/errors.hpp"

namespace spiral {
namespace {

// Two ends of one stream connection, as the control channel sees a TCP socket.
std::pair<ControlChannel, Fd> connected_pair() {
  int fds[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  return {ControlChannel(Fd(fds[0])), Fd(fds[1])};
}

TEST(ControlChannel, MessagesSplitAcrossReadsArriveWhole) {
  auto [channel, peer] = connected_pair();
  const std::string two = "{\"type\":\"measure\"}\n{\"type\":\"end\",\"sender\":{\"window_ms\":5}}\n";
  ASSERT_EQ(write(peer.get(), two.data(), 10), 10);  // half a message first
  EXPECT_FALSE(channel.poll(Millis(20)));
  ASSERT_EQ(write(peer.get(), two.data() + 10, two.size() - 10), static_cast<ssize_t>(two.size() - 10));
  EXPECT_EQ((*channel.poll(Millis(100)))["type"], "measure");
  EXPECT_EQ(channel.expect("end", Millis(100))["sender"]["window_ms"], 5);
}

TEST(ControlChannel, SendWritesOneLinePerMessage) {
  auto [channel, peer] = connected_pair();
  channel.send({{"type", "hello"}, {"pairs", 2}});
  char buf[256] = {};
  ssize_t n = read(peer.get(), buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n), "{\"pairs\":2,\"type\":\"hello\"}\n");
}

TEST(ControlChannel, PeerErrorsAndSilenceAreRunFailures) {
  auto [channel, peer] = connected_pair();
  const std::string error = "{\"type\":\"error\",\"reason\":\"pairs differ\"}\n";
  ASSERT_EQ(write(peer.get(), error.data(), error.size()), static_cast<ssize_t>(error.size()));
  try {
    channel.expect("welcome", Millis(100));
    FAIL() << "accepted an error message";
  } catch (const RunFailure& e) {
    EXPECT_STREQ(e.what(), "peer reported: pairs differ");
  }
  EXPECT_THROW(channel.expect("welcome", Millis(10)), RunFailure);  // nothing more arrives
}

TEST(ControlChannel, NoticesAClosedPeerWithoutConsumingMessages) {
  auto [channel, peer] = connected_pair();
  const std::string line = "{\"type\":\"report\"}\n";
  ASSERT_EQ(write(peer.get(), line.data(), line.size()), static_cast<ssize_t>(line.size()));
  EXPECT_NO_THROW(channel.require_open());  // data pending is not a close
  EXPECT_EQ((*channel.poll(Millis(100)))["type"], "report");
  peer.reset();
  EXPECT_THROW(channel.require_open(), RunFailure);
  EXPECT_THROW(channel.poll(Millis(100)), RunFailure);
}

TEST(ControlChannel, MalformedLinesAreRefused) {
  auto [channel, peer] = connected_pair();
  const std::string junk = "not json\n";
  ASSERT_EQ(write(peer.get(), junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
  EXPECT_THROW(channel.poll(Millis(100)), RunFailure);
}

}  // namespace
}  // namespace spiral
