// The wire proof from counter samples in ethtool -S's format (data/wire/README.md): crossed,
// did not cross, unverified; per link and per shared interface.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cell_refusal.hpp"
#include "config/cell_parse.hpp"
#include "kinds/registry.hpp"
#include "metrics/run_result.hpp"
#include "metrics/verdict.hpp"
#include "metrics/wire_proof.hpp"
#include "output/csv_row.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"

namespace spiral {
namespace {

// ethtool -S text -> the name/value map the SIOCETHTOOL reader returns.
std::map<std::string, uint64_t> ethtool_s(const std::string& file) {
  std::ifstream in(std::string(SPIRAL_TEST_DATA) + "/wire/" + file);
  EXPECT_TRUE(in) << file;
  std::map<std::string, uint64_t> stats;
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.rfind(':');
    if (colon == std::string::npos || line.find("statistics") != std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    stats[name] = std::stoull(line.substr(colon + 1));
  }
  return stats;
}

PhySample sample(const std::string& file) { return phy_sample(ethtool_s(file), ""); }

constexpr uint64_t kAppBytes = 122'500'000'000;  // 10 s at 98 Gb/s of payload

TEST(WireProof, Mlx5PhyCountersThatMovedProveTheWire) {
  const WireSide tx = wire_delta("10.0.1.2", "enp1s0f0np0", sample("mlx5_before.txt"), sample("mlx5_after.txt"));
  ASSERT_TRUE(tx.available);
  EXPECT_EQ(tx.tx_bytes_phy, 124'000'000'000u);
  EXPECT_EQ(tx.rx_bytes_phy, 124'000'000'000u);
  EXPECT_EQ(tx.tx_packets_phy, 13'700'000'000u);
  const WireCheck c = check_wire(tx, /*transmit=*/true, kAppBytes);
  EXPECT_EQ(c.verdict, WireVerdict::crossed);
  EXPECT_EQ(std::string(to_string(c.verdict)), "crossed");
  EXPECT_EQ(c.phy_bytes, 124'000'000'000u);
}

TEST(WireProof, PhyThatStayedPutMeansTheBytesNeverCrossed) {
  // The application and the vport counters saw every byte; the port's PHY only a few frames.
  const WireSide looped = wire_delta("10.0.1.2", "enp1s0f0np0", sample("mlx5_before.txt"), sample("mlx5_looped_after.txt"));
  ASSERT_TRUE(looped.available);
  const WireCheck c = check_wire(looped, /*transmit=*/true, kAppBytes);
  EXPECT_EQ(c.verdict, WireVerdict::did_not_cross);
  EXPECT_EQ(c.phy_bytes, 2400u);
  EXPECT_EQ(overall({c}), WireVerdict::did_not_cross);
  const std::string reason = wire_invalid_reason({c});
  EXPECT_EQ(reason.rfind("never crossed the wire: enp1s0f0np0 tx_bytes_phy +2400 for 122500000000 application bytes sent", 0), 0u)
      << reason;
}

TEST(WireProof, OneByteShortIsNotEnough) {
  WireSide side;
  side.netdev = "p0";
  side.available = true;
  side.rx_bytes_phy = 1000;
  EXPECT_EQ(check_wire(side, false, 1000).verdict, WireVerdict::crossed);
  EXPECT_EQ(check_wire(side, false, 1001).verdict, WireVerdict::did_not_cross);
}

TEST(WireProof, VethHasNoPhyCountersSoTheWireIsUnverified) {
  const PhySample s = sample("veth_ethtool_S.txt");
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.note.find("no PHY counters (tx_bytes_phy, rx_bytes_phy) among 10 driver statistics"), std::string::npos)
      << s.note;
  const WireCheck c = check_wire(wire_delta("10.77.0.2", "sbw2-a0", s, s), true, kAppBytes);
  EXPECT_EQ(c.verdict, WireVerdict::unverified);
  EXPECT_EQ(wire_note({c}), "wire unverified: sbw2-a0: " + s.note);
  EXPECT_EQ(wire_invalid_reason({c}), "");
}

TEST(WireProof, NoStatisticsAtAllIsUnverifiedWithTheReason) {
  const PhySample s = phy_sample(std::nullopt, "lo: ETHTOOL_GSSET_INFO: Operation not supported");
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.note, "lo: ETHTOOL_GSSET_INFO: Operation not supported");
  WireSide unknown = wire_delta("10.9.9.9", "", PhySample{}, PhySample{});
  EXPECT_EQ(check_wire(unknown, true, 1).verdict, WireVerdict::unverified);
  EXPECT_EQ(overall({}), WireVerdict::unverified);
}

TEST(WireProof, OverallIsTheWorstCheck) {
  WireCheck crossed, unverified, not_crossed;
  crossed.verdict = WireVerdict::crossed;
  not_crossed.verdict = WireVerdict::did_not_cross;
  EXPECT_EQ(overall({crossed, crossed}), WireVerdict::crossed);
  EXPECT_EQ(overall({crossed, unverified}), WireVerdict::unverified);
  EXPECT_EQ(overall({unverified, not_crossed, crossed}), WireVerdict::did_not_cross);
}

// Two links, pairs 0 and 2 on link 0, pair 1 on link 1; each side's report carries its links.
SideReport side_with(std::vector<WireSide> links) {
  SideReport s;
  s.links = std::move(links);
  return s;
}
WireSide link(std::string netdev, uint64_t tx_phy, uint64_t rx_phy, bool available = true) {
  WireSide w;
  w.netdev = std::move(netdev);
  w.available = available;
  w.tx_bytes_phy = tx_phy;
  w.rx_bytes_phy = rx_phy;
  if (!available) w.note = "no PHY counters";
  return w;
}

RunResult three_pairs() {
  RunResult r;
  r.seconds_milli = 1000;
  r.pairs.resize(3);
  r.pairs[0].tx_bytes = r.pairs[0].rx_bytes = 100;
  r.pairs[1].tx_bytes = r.pairs[1].rx_bytes = 200;
  r.pairs[2].tx_bytes = r.pairs[2].rx_bytes = 300;
  return r;
}

TEST(LinkResults, PairsSpreadOverLinksAddUpPerLink) {
  RunResult r = three_pairs();
  const SideReport tx = side_with({link("a0", 500, 0), link("b0", 250, 0)});
  const SideReport rx = side_with({link("a1", 0, 400), link("b1", 0, 200)});
  account_links(&tx, &rx, r);
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_EQ(r.links[0].pairs, 2u);
  EXPECT_EQ(r.links[0].tx_bytes, 400u);
  EXPECT_EQ(r.links[1].rx_bytes, 200u);
  EXPECT_EQ(r.links[0].tx_netdev, "a0");
  EXPECT_EQ(r.links[1].rx_netdev, "b1");
  EXPECT_EQ(r.links[0].wire, WireVerdict::crossed);
  EXPECT_EQ(r.links[1].wire, WireVerdict::crossed);
  EXPECT_EQ(r.wire, "crossed");
  EXPECT_EQ(phy_total(r.wire_checks, true), 750u);
  EXPECT_EQ(phy_total(r.wire_checks, false), 600u);
}

TEST(LinkResults, OneLinkShortMakesTheRunInvalid) {
  RunResult r = three_pairs();
  const SideReport tx = side_with({link("a0", 500, 0), link("b0", 150, 0)});  // b0 sent 200
  const SideReport rx = side_with({link("a1", 0, 400), link("b1", 0, 200)});
  account_links(&tx, &rx, r);
  EXPECT_EQ(r.links[0].wire, WireVerdict::crossed);
  EXPECT_EQ(r.links[1].wire, WireVerdict::did_not_cross);
  EXPECT_EQ(r.wire, "did-not-cross");
  r.tx_bytes = r.rx_bytes = 600;
  const Cell cell = [] {
    Cell c;
    c.kind = find_kind("tcp");
    c.pairs = 3;
    return c;
  }();
  const Verdict v = judge(cell, r);
  EXPECT_EQ(v.state, RunState::invalid);
  EXPECT_NE(v.reason.find("never crossed the wire: b0 tx_bytes_phy +150 for 200"), std::string::npos) << v.reason;
}

TEST(LinkResults, LinksSharingAnInterfaceAreCheckedTogether) {
  // Both links leave through one port: its PHY must carry both links' bytes (600), not each's.
  RunResult r = three_pairs();
  const SideReport tx = side_with({link("p0", 500, 0), link("p0", 500, 0)});
  const SideReport rx = side_with({link("q0", 0, 700), link("q0", 0, 700)});
  account_links(&tx, &rx, r);
  ASSERT_EQ(r.wire_checks.size(), 2u);
  EXPECT_EQ(r.wire_checks[0].app_bytes, 600u);
  EXPECT_EQ(r.wire_checks[0].verdict, WireVerdict::did_not_cross);
  EXPECT_EQ(r.wire_checks[1].verdict, WireVerdict::crossed);
}

TEST(LinkResults, VethLinksShowUnverifiedAndStayValid) {
  RunResult r = three_pairs();
  r.tx_bytes = r.rx_bytes = r.tx_bytes_all = r.rx_bytes_all = 600;
  r.rx_finished = true;
  const SideReport tx = side_with({link("sbw2-a0", 0, 0, false), link("sbw2-b0", 0, 0, false)});
  const SideReport rx = side_with({link("sbw2-a1", 0, 0, false), link("sbw2-b1", 0, 0, false)});
  account_links(&tx, &rx, r);
  EXPECT_EQ(r.wire, "unverified");
  EXPECT_EQ(r.wire_note, "wire unverified: sbw2-a0: no PHY counters");
  Cell cell;
  cell.kind = find_kind("tcp");
  cell.pairs = 3;
  EXPECT_EQ(judge(cell, r).state, RunState::valid) << judge(cell, r).reason;
  // The record, the summary and the CSV say so.
  EXPECT_EQ(result_record(cell, r)["wire"], "unverified");
  EXPECT_EQ(result_record(cell, r)["links"].size(), 2u);
  const auto summary = nlohmann::json::parse(summary_text(cell, r));
  EXPECT_EQ(summary["wire"], "unverified");
  EXPECT_EQ(summary["links"][1]["tx_netdev"], "sbw2-b0");
  EXPECT_NE(csv_row(cell, r).find(",unverified,0,0,2,"), std::string::npos) << csv_row(cell, r);
}

TEST(LinkResults, NoLinksReportedLeavesTheWireUnsaid) {
  RunResult r = three_pairs();
  const SideReport tx, rx;
  account_links(&tx, &rx, r);
  EXPECT_TRUE(r.links.empty());
  EXPECT_EQ(r.wire, "");
}

// The links' cell keys: a list per link, refused where the kind drives one link.
TEST(LinkKeys, ServerAddressesAndNetdevsPerLink) {
  using spiral::testing::refusal;
  const nlohmann::json tcp = {{"transport", "tcp"}, {"role", "client"}, {"pairs", 4}};
  Cell c = parse_cell(testing::with(tcp, "server_addresses", {"10.79.1.2", "10.79.2.2"}));
  EXPECT_EQ(link_count(c), 2u);
  EXPECT_EQ(pair_server_address(c, 0), "10.79.1.2");
  EXPECT_EQ(pair_server_address(c, 3), "10.79.2.2");
  EXPECT_EQ(link_count(parse_cell(tcp)), 1u);
  EXPECT_EQ(pair_server_address(parse_cell(tcp), 1), "127.0.0.1");
  EXPECT_EQ(refusal(testing::with(testing::with(tcp, "server_addresses", {"a", "b"}), "netdevs", {"p0"})),
            "cell: \"netdevs\" names 1 interfaces for 2 server_addresses: give one per link");
  EXPECT_EQ(refusal(testing::with(tcp, "netdevs", {"p0", "p1"})),
            "cell: \"netdevs\" names several interfaces, but the client drives one link: give server_addresses, one per interface");
  const nlohmann::json roce = {{"transport", "roce"}, {"role", "client"}, {"server_addresses", {"10.0.0.1", "10.0.0.2"}}};
  EXPECT_NE(refusal(roce).find("drives one link per run"), std::string::npos) << refusal(roce);
  EXPECT_NE(refusal(testing::with(tcp, "netdevs", {"an-interface-name-too-long"})).find("1 to 15 characters"), std::string::npos);
}

}  // namespace
}  // namespace spiral
