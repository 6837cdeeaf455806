#include "app/cli.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "sys/errors.hpp"
#include "config/cell_parse.hpp"
#include "kinds/registry.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"

namespace spiral {
namespace {

std::optional<nlohmann::json> parse(std::vector<const char*> args, std::string* printed = nullptr) {
  args.insert(args.begin(), "spiral-dataplane");
  std::ostringstream out;
  auto j = parse_command_line(static_cast<int>(args.size()), args.data(), out);
  if (printed) *printed = out.str();
  return j;
}

class CellFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "cli_test_cell.json";
    std::ofstream(path_) << R"({"transport":"udp","role":"server","pairs":2,"payload_bytes":1000,
                               "cores":{"tx":[0]},"labels":{"cell":"7"}})";
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

TEST_F(CellFile, FlagsOverrideTheCellFile) {
  auto j = parse({"--cell", path_.c_str(), "--pairs", "4", "--rx-cores", "1,0", "--label", "repeat=2"});
  ASSERT_TRUE(j);
  Cell c = parse_cell(*j);
  EXPECT_EQ(c.pairs, 4u);                  // flag
  EXPECT_EQ(c.payload_bytes, 1000u);       // file
  EXPECT_EQ(c.cores.tx, std::vector<int>{0});
  EXPECT_EQ(c.cores.rx, (std::vector<int>{1, 0}));
  EXPECT_EQ(c.labels.at("cell"), "7");
  EXPECT_EQ(c.labels.at("repeat"), "2");
}

TEST_F(CellFile, PositionalRoleAndSwitches) {
  Cell c = parse_cell(*parse({"client", "--cell", path_.c_str(), "--udp-gso", "--udp-gro=false", "--seconds", "2.5"}));
  EXPECT_EQ(c.role, Role::client);
  EXPECT_TRUE(socket_options(c).udp_gso);
  EXPECT_FALSE(socket_options(c).udp_gro);
  EXPECT_EQ(c.duration_ms, 2500u);
}

TEST(Cli, FlagsAloneDescribeACell) {
  Cell c = parse_cell(*parse({"--role", "loopback", "--transport", "tcp", "--tcp-nodelay", "--master-core", "0"}));
  EXPECT_EQ(c.role, Role::loopback);
  EXPECT_TRUE(socket_options(c).tcp_nodelay);
  EXPECT_EQ(c.cores.master, 0);
}

TEST(Cli, BadFlagsAreBadInput) {
  EXPECT_THROW(parse({"--no-such-flag"}), BadInput);
  EXPECT_THROW(parse({"--pairs", "four"}), BadInput);
  EXPECT_THROW(parse({"--label", "novalue"}), BadInput);
  EXPECT_THROW(parse({"--cell", "/nonexistent.json"}), BadInput);
  // Valid syntax, invalid value: refused by the one validation step, naming the key.
  auto j = parse({"--transport", "quic", "--role", "server"});
  try {
    parse_cell(*j);
    FAIL() << "accepted transport quic";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "cell: \"transport\" must be " + kind_names() + ", got \"quic\"");
  }
}

TEST(Cli, HelpPrintsAndReturnsNothing) {
  std::string printed;
  EXPECT_FALSE(parse({"--help"}, &printed));
  EXPECT_NE(printed.find("--payload-bytes"), std::string::npos);
}

}  // namespace
}  // namespace spiral
