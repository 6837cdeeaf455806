// The cell's "search" object at the data plane's edge: parsed into plain values, refused with
// the key and what to change, echoed so the record's cell parses back the same; and the
// control protocol's check that both sides agree on searching.
#include <gtest/gtest.h>

#include "cell_refusal.hpp"
#include "config/cell_json.hpp"
#include "control/messages.hpp"

namespace spiral {
namespace {

using nlohmann::json;
using spiral::testing::refusal;
using spiral::testing::with;

json udp_cell() { return {{"transport", "udp"}, {"role", "client"}, {"seconds", 5}}; }

TEST(RateSearchParse, ReadsEveryKeyIntoPlainValues) {
  Cell c = parse_cell(with(udp_cell(), "search",
                           {{"lower_mbps", 100}, {"upper_mbps", 9000}, {"trial_seconds", 1.5}, {"resolution_mbps", 50},
                            {"pdr_ppm", 1000}, {"settle_ms", 250}, {"method", "binary"}}));
  ASSERT_TRUE(c.search);
  EXPECT_EQ(c.search->lower_mbps, 100u);
  EXPECT_EQ(c.search->upper_mbps, 9000u);
  EXPECT_EQ(c.search->trial_ms, 1500u);
  EXPECT_EQ(c.search->resolution_mbps, 50u);
  EXPECT_EQ(c.search->pdr_ppm, 1000u);
  EXPECT_EQ(c.search->settle_ms, 250u);
  EXPECT_EQ(c.search->method, SearchMethod::binary);
  // the record's echo parses back into the same search
  Cell again = parse_cell(cell_to_json(c));
  ASSERT_TRUE(again.search);
  EXPECT_EQ(again.search->resolution_mbps, 50u);
  EXPECT_EQ(again.search->trial_ms, 1500u);
  EXPECT_EQ(again.search->method, SearchMethod::binary);
}

TEST(RateSearchParse, DefaultsAreAnUnpacedUpperBoundAndOnePercent) {
  Cell c = parse_cell(with(udp_cell(), "search", json::object()));
  ASSERT_TRUE(c.search);
  EXPECT_EQ(c.search->upper_mbps, 0u);
  EXPECT_EQ(c.search->resolution_percent, 1u);
  EXPECT_EQ(c.search->method, SearchMethod::receive_rate);
  EXPECT_FALSE(parse_cell(udp_cell()).search);
}

TEST(RateSearchParse, RefusesWithTheKeyAndWhatToChange) {
  EXPECT_EQ(refusal(with(with(udp_cell(), "transport", "tcp"), "search", json::object())),
            "cell: \"search\" applies to paced transports whose trials count every lost datagram or frame (udp, raw); "
            "tcp is not one: remove search");
  EXPECT_EQ(refusal(with(udp_cell(), "search", {{"lower_mbps", 500}, {"upper_mbps", 400}})),
            "cell: \"search.upper_mbps\" must be above search.lower_mbps (500), or 0 to use the rate of an unpaced "
            "first trial; got 400");
  EXPECT_EQ(refusal(with(udp_cell(), "search", {{"resolution_mbps", 5}, {"resolution_percent", 1}})),
            "cell: \"search.resolution_mbps\" and search.resolution_percent are exclusive: give one");
  EXPECT_NE(refusal(with(udp_cell(), "search", {{"resolution_mbps", 0}})).find("search.resolution_mbps"), std::string::npos);
  EXPECT_NE(refusal(with(udp_cell(), "search", {{"pdr_ppm", 1000000}})).find("search.pdr_ppm"), std::string::npos);
  EXPECT_NE(refusal(with(udp_cell(), "search", {{"method", "golden"}})).find("must be binary or receive_rate"),
            std::string::npos);
  EXPECT_NE(refusal(with(udp_cell(), "search", {{"steps", 3}})).find("search.steps"), std::string::npos);
  EXPECT_EQ(refusal(with(with(udp_cell(), "target_mbps", 500), "search", json::object())),
            "cell: \"target_mbps\" is set by the search for each trial: leave it out (or 0) when search is given");
}

TEST(RateSearchParse, ServerAndClientMustAgreeOnSearching) {
  Cell searching = parse_cell(with(udp_cell(), "search", json::object()));
  Cell plain = parse_cell(udp_cell());
  EXPECT_EQ(hello_mismatch(hello_message(searching), plain), "the client's cell has a search, the server's has none");
  EXPECT_EQ(hello_mismatch(hello_message(plain), searching), "the client's cell has no search, the server's has one");
  EXPECT_EQ(hello_mismatch(hello_message(searching), searching), "");
}

}  // namespace
}  // namespace spiral
