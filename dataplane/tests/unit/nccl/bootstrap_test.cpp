// The NCCL unique id exchange over the control channel, on loopback: ranks as threads, each with
// its own TCP connection to rank 0, as pods would have.
#include "transports/nccl/bootstrap.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <future>
#include <thread>

#include "sys/errors.hpp"
#include "sys/socket.hpp"

namespace spiral::nccl {
namespace {

struct Listener {
  Fd fd;
  uint16_t port;
};

Listener listen_loopback() {
  Fd fd = tcp_listen(ipv4_address("127.0.0.1", 0));
  sockaddr_in at{};
  socklen_t len = sizeof at;
  EXPECT_EQ(getsockname(fd.get(), reinterpret_cast<sockaddr*>(&at), &len), 0);
  return {std::move(fd), ntohs(at.sin_port)};
}

UniqueId some_id() {
  UniqueId id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i * 37 + 11);
  return id;
}

BootstrapSpec spec(int rank, int nranks, uint16_t port, Millis timeout = Millis(5000)) {
  return {"cell-3", rank, nranks, "127.0.0.1", port, timeout};
}

TEST(Bootstrap, HexRoundTripsAndRefusesGarbage) {
  EXPECT_EQ(unique_id_from_hex(to_hex(some_id())), some_id());
  EXPECT_EQ(to_hex(some_id()).size(), 256u);
  EXPECT_THROW(unique_id_from_hex("abc"), RunFailure);
  EXPECT_THROW(unique_id_from_hex(std::string(256, 'x')), RunFailure);
}

TEST(Bootstrap, EveryRankGetsRankZerosIdAndReportsBack) {
  auto listener = listen_loopback();
  const int n = 4;
  std::vector<std::future<UniqueId>> ranks;
  for (int r = n - 1; r >= 1; --r)  // arrive out of order
    ranks.push_back(std::async(std::launch::async, [&, r] {
      auto session = RankSession::join(spec(r, n, listener.port));
      session.send_report({{"rows", r * 10}});
      return session.unique_id();
    }));
  auto root = RootSession::serve(listener.fd.get(), spec(0, n, listener.port), some_id());
  for (auto& r : ranks) EXPECT_EQ(r.get(), some_id());
  const auto reports = root.gather_reports(Millis(5000));
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0]["rows"], 10);  // index r-1 is rank r, whatever the arrival order
  EXPECT_EQ(reports[2]["rows"], 30);
}

TEST(Bootstrap, OneRankNeedsNoPeers) {
  auto listener = listen_loopback();
  auto root = RootSession::serve(listener.fd.get(), spec(0, 1, listener.port, Millis(100)), some_id());
  EXPECT_TRUE(root.gather_reports(Millis(10)).empty());
}

TEST(Bootstrap, ARankThatNeverArrivesFailsTheCellWithinItsTimeout) {
  auto listener = listen_loopback();
  const Millis timeout(600);
  auto rank1 = std::async(std::launch::async, [&] {
    try {
      RankSession::join(spec(1, 3, listener.port, Millis(5000)));
      return std::string("joined");
    } catch (const RunFailure& e) {
      return std::string(e.what());
    }
  });
  const auto start = Clock::now();
  try {
    RootSession::serve(listener.fd.get(), spec(0, 3, listener.port, timeout), some_id());
    FAIL() << "served without rank 2";
  } catch (const RunFailure& e) {
    const auto took = millis_between(start, Clock::now());
    EXPECT_GE(took, timeout.count() - 50);
    EXPECT_LT(took, timeout.count() + 1000);
    EXPECT_STREQ(e.what(), "NCCL bootstrap: rank 2 of 3 did not arrive within 600 ms (arrived: 0, 1)");
  }
  // the rank that came is told why, instead of waiting for its own timeout
  const std::string told = rank1.get();
  EXPECT_NE(told.find("rank 2 of 3 did not arrive"), std::string::npos) << told;
}

TEST(Bootstrap, ARankGivesUpWhenRankZeroNeverAnswers) {
  auto listener = listen_loopback();  // listening, but nobody accepts or answers
  const auto start = Clock::now();
  try {
    RankSession::join(spec(2, 3, listener.port, Millis(400)));
    FAIL() << "joined without rank 0";
  } catch (const RunFailure& e) {
    EXPECT_LT(millis_between(start, Clock::now()), 1500);
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 2 got no unique id from rank 0 at 127.0.0.1:" + std::to_string(listener.port)),
              std::string::npos)
        << what;
  }
}

TEST(Bootstrap, ARankUnreachableRankZeroIsNamed) {
  uint16_t port;
  {
    auto listener = listen_loopback();
    port = listener.port;
  }  // closed: connections are refused
  try {
    RankSession::join(spec(1, 2, port, Millis(300)));
    FAIL() << "joined a closed port";
  } catch (const RunFailure& e) {
    EXPECT_NE(std::string(e.what()).find("could not reach rank 0 at 127.0.0.1:"), std::string::npos) << e.what();
  }
}

TEST(Bootstrap, RanksOfAnotherShapeAreRefusedWithTheReason) {
  auto listener = listen_loopback();
  auto stray = std::async(std::launch::async, [&] {
    try {
      RankSession::join({"cell-3", 1, 4, "127.0.0.1", listener.port, Millis(3000)});  // thinks 4 ranks
      return std::string("joined");
    } catch (const RunFailure& e) {
      return std::string(e.what());
    }
  });
  try {
    RootSession::serve(listener.fd.get(), spec(0, 2, listener.port, Millis(3000)), some_id());
    FAIL() << "accepted a rank of another shape";
  } catch (const RunFailure& e) {
    EXPECT_STREQ(e.what(), "NCCL bootstrap: rank 1 expects 4 ranks, rank 0 expects 2");
  }
  EXPECT_NE(stray.get().find("rank 1 expects 4 ranks"), std::string::npos);
}

}  // namespace
}  // namespace spiral::nccl
