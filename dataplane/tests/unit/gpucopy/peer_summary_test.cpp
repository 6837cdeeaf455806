// The GPU-to-GPU part of the copy bench that needs no GPU: pairs, matrix shaping, the options,
// the compact summary and its trimming to the termination message's budget.
#include "transports/gpucopy/peer_summary.hpp"

#include <gtest/gtest.h>

#include "config/cell_parse.hpp"
#include "sys/errors.hpp"
#include "transports/gpucopy/gpucopy_options.hpp"

namespace spiral::gpucopy {
namespace {

TEST(PeerSpec, OrderedPairsAreSourceMajorWithoutTheDiagonal) {
  const auto pairs = ordered_pairs(3);
  const std::vector<std::pair<size_t, size_t>> want{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}};
  EXPECT_EQ(pairs, want);
  EXPECT_TRUE(ordered_pairs(1).empty());
  EXPECT_EQ(ordered_pairs(8).size(), 56u);
}

TEST(PeerSpec, RowsAreIntegerMegabytesWithMinusOneWhereNotMeasured) {
  PeerMatrix m = empty_matrix(PeerMethod::sm, PeerMode::bi, 1 << 20, 2);
  m.gbps[1] = 48.2104;  // [0][1]
  const auto rows = rows_mbps(m);
  EXPECT_EQ(rows, (std::vector<std::vector<int64_t>>{{-1, 48210}, {-1, -1}}));
  EXPECT_DOUBLE_EQ(m.at(0, 1), 48.2104);
}

TEST(PeerSpec, NamesRoundTripAndUnknownOnesAreRefused) {
  EXPECT_EQ(peer_method_named(name(PeerMethod::sm)), PeerMethod::sm);
  EXPECT_EQ(peer_mode_named("bi"), PeerMode::bi);
  EXPECT_EQ(host_direction_named("d2h"), HostDirection::d2h);
  EXPECT_THROW(peer_method_named("dma"), BadInput);
  EXPECT_THROW(peer_mode_named("both"), BadInput);
  EXPECT_THROW(host_direction_named("d2d"), BadInput);
}

TEST(PeerSpec, OptionsDefaultToEverythingAndAcceptNone) {
  const Cell all = parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}});
  const PeerSpec& p = copy_options(all).peer;
  EXPECT_EQ(p.methods, (std::vector<PeerMethod>{PeerMethod::ce, PeerMethod::sm}));
  EXPECT_EQ(p.modes, (std::vector<PeerMode>{PeerMode::uni, PeerMode::bi}));
  EXPECT_EQ(p.bytes, (std::vector<uint64_t>{256ull << 20}));
  EXPECT_EQ(p.aggregate.size(), 2u);

  const Cell some = parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}, {"peer_methods", "sm"},
                                {"peer_modes", "bi"}, {"peer_bytes", "8M,1G"}, {"aggregate", "none"}});
  const PeerSpec& q = copy_options(some).peer;
  EXPECT_EQ(q.methods, std::vector<PeerMethod>{PeerMethod::sm});
  EXPECT_EQ(q.modes, std::vector<PeerMode>{PeerMode::bi});
  EXPECT_EQ(q.bytes, (std::vector<uint64_t>{8ull << 20, 1ull << 30}));
  EXPECT_TRUE(q.aggregate.empty());
  EXPECT_TRUE(copy_options(parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}, {"peer_methods", "none"}}))
                  .peer.methods.empty());
}

TEST(PeerSpec, OptionRefusalsNameTheKey) {
  auto refusal = [](const char* key, const char* value) {
    try {
      parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}, {key, value}});
    } catch (const BadInput& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("peer_methods", "dma"),
            "cell: \"peer_methods\" unknown peer copy method \"dma\" (known: ce, sm, or none alone)");
  EXPECT_EQ(refusal("peer_bytes", "32G"), "cell: \"peer_bytes\" peer copy size \"32G\" must be 1 B .. 16G");
  EXPECT_EQ(refusal("peer_bytes", "8X"), "cell: \"peer_bytes\" size \"8X\": unknown unit (K, M or G)");
  EXPECT_EQ(refusal("peer_modes", "none"), "cell: \"peer_modes\" unknown peer copy mode \"none\" (known: uni, bi)");
}

PeerResult two_gpus() {
  PeerResult r;
  r.devices = {0, 1};
  r.paths = {{0, 1, "NV18", true}};
  PeerMatrix ce = empty_matrix(PeerMethod::ce, PeerMode::uni, 256 << 20, 2);
  ce.gbps = {-1, 371.25, 370.5, -1};
  r.matrices.push_back(ce);
  r.host.push_back({HostDirection::h2d, 256 << 20, {55.3, 55.2}, {30.1, 29.9}, 59.8});
  return r;
}

TEST(PeerSummary, CompactFormIsExact) {
  nlohmann::json part = {{"gpus", nlohmann::json::array()}, {"rows", nlohmann::json::array()}};
  add_peer_part(two_gpus(), part);
  EXPECT_EQ(part.dump(),
            R"({"devices":[0,1],"gpus":[],"host":[["h2d",268435456,[55300,55200],[30100,29900],59800]],)"
            R"("links":[[0,1,"NV18",1]],"peer":[["ce","uni",268435456,[[-1,371250],[370500,-1]]]],"rows":[]})");
  PeerResult one;
  one.devices = {0};
  one.note = "one GPU: no pairs to measure";
  nlohmann::json alone;
  add_peer_part(one, alone);
  EXPECT_EQ(alone["peer_note"], "one GPU: no pairs to measure");
  EXPECT_TRUE(alone["peer"].empty());
}

// Eight GPUs, four matrices at two sizes and a sweep of 320 rows: the summary keeps the first
// size's four matrices whole, the links and the host aggregate, and says what it dropped.
TEST(PeerSummary, EightGpusFitTheBudgetKeepingTheFirstSize) {
  PeerResult r;
  for (int d = 0; d < 8; ++d) r.devices.push_back(d);
  for (auto [a, b] : ordered_pairs(8))
    if (a < b) r.paths.push_back({static_cast<int>(a), static_cast<int>(b), "NV18", true});
  for (uint64_t bytes : {256ull << 20, 1ull << 30})
    for (PeerMethod m : {PeerMethod::ce, PeerMethod::sm})
      for (PeerMode mode : {PeerMode::uni, PeerMode::bi}) {
        PeerMatrix mx = empty_matrix(m, mode, bytes, 8);
        for (auto [s, d] : ordered_pairs(8)) mx.gbps[s * 8 + d] = 388.123 + s;
        r.matrices.push_back(mx);
      }
  r.host.push_back({HostDirection::h2d, 256 << 20, std::vector<double>(8, 55.3), std::vector<double>(8, 26.4), 211.2});
  r.host.push_back({HostDirection::d2h, 256 << 20, std::vector<double>(8, 55.3), std::vector<double>(8, 26.4), 211.2});
  nlohmann::json part = {{"gpus", nlohmann::json::array()}, {"rows", nlohmann::json::array()}};
  for (int i = 0; i < 320; ++i) part["rows"].push_back({i % 8, "h2d", "pinned", 268435456, 4854321, 55301});
  add_peer_part(r, part);
  const size_t budget = 4096 - 900;
  fit_summary(part, budget);
  EXPECT_LE(part.dump().size(), budget);
  // every row went before any matrix; then as many 1 GiB matrices as fit, none of 256 MiB
  EXPECT_TRUE(part["rows"].empty());
  EXPECT_EQ(part["trimmed"]["rows"], 320);
  ASSERT_GE(part["peer"].size(), 4u);
  ASSERT_LT(part["peer"].size(), 8u);
  EXPECT_EQ(part["trimmed"]["peer"].get<size_t>() + part["peer"].size(), 8u);
  for (size_t i = 0; i < part["peer"].size(); ++i) {
    EXPECT_EQ(part["peer"][i][2], i < 4 ? 256ull << 20 : 1ull << 30);
    EXPECT_EQ(part["peer"][i][3].size(), 8u);
  }
  EXPECT_EQ(part["links"].size(), 28u);
  EXPECT_EQ(part["host"].size(), 2u);
}

TEST(PeerSummary, NothingIsTrimmedWhenItFits) {
  nlohmann::json part = {{"gpus", nlohmann::json::array()}, {"rows", nlohmann::json::array({1})}};
  add_peer_part(two_gpus(), part);
  const nlohmann::json before = part;
  fit_summary(part, 4096 - 900);
  EXPECT_EQ(part, before);
}

}  // namespace
}  // namespace spiral::gpucopy
