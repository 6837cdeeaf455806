#include "config/cell_parse.hpp"
#include "config/cell_json.hpp"

#include <gtest/gtest.h>

#include "kinds/registry.hpp"
#include "sys/errors.hpp"
#include "gpu/build.hpp"

#include "cell_refusal.hpp"

namespace spiral {
namespace {

using nlohmann::json;

// The operator's contract example (docs/dataplane.md), verbatim.
json contract_cell() {
  return json::parse(R"({ "transport": "tcp", "role": "server",
    "payload_bytes": 8000, "pairs": 4, "target_mbps": 0,
    "seconds": 30, "warmup_seconds": 2,
    "server_address": "10.0.0.1", "bind_address": "0.0.0.0", "base_port": 5201,
    "connect_timeout_ms": 10000, "grace_ms": 2000,
    "cores": { "master": -1, "tx": [16,17], "rx": [18,19], "tx_workers": [], "rx_workers": [] },
    "tcp_nodelay": false, "udp_gso": false, "udp_gro": false, "socket_buffer_bytes": 0,
    "workload": { "kind": "none" },
    "ready_file": "/run/spiral/ready", "summary_file": "/dev/termination-log", "csv": false,
    "labels": { "cell": "3", "repeat": "1" } })");
}

// The one-line message parse_cell refuses `j` with.
using spiral::testing::refusal;

using spiral::testing::with;
TEST(CellParse, ContractExampleParsesIntoPlainValues) {
  Cell c = parse_cell(contract_cell());
  EXPECT_EQ(c.kind->name, "tcp");
  EXPECT_EQ(c.role, Role::server);
  EXPECT_EQ(c.payload_bytes, 8000u);
  EXPECT_EQ(c.pairs, 4u);
  EXPECT_EQ(c.duration_ms, 30000u);
  EXPECT_EQ(c.warmup_ms, 2000u);
  EXPECT_EQ(c.server_address, "10.0.0.1");
  EXPECT_EQ(c.base_port, 5201);
  EXPECT_EQ(c.control_port, 5200);  // base_port - 1
  EXPECT_EQ(c.cores.master, -1);
  EXPECT_EQ(c.cores.tx, (std::vector<int>{16, 17}));
  EXPECT_EQ(c.cores.rx, (std::vector<int>{18, 19}));
  EXPECT_EQ(c.batch, 1u);  // tcp: one send per message
  EXPECT_EQ(c.summary_file, "/dev/termination-log");
  EXPECT_EQ(c.labels.at("repeat"), "1");
}

TEST(CellParse, DefaultsNeedOnlyTransportAndRole) {
  Cell c = parse_cell(json{{"transport", "udp"}, {"role", "client"}});
  EXPECT_EQ(c.kind->name, "udp");
  EXPECT_EQ(c.batch, 64u);
  EXPECT_EQ(c.pairs, 1u);
  EXPECT_EQ(c.target_mbps, 0u);
  EXPECT_EQ(c.grace_ms, 2000u);
}

TEST(CellParse, FractionalSecondsBecomeMilliseconds) {
  Cell c = parse_cell(with(with(contract_cell(), "seconds", 1.5), "warmup_seconds", 0));
  EXPECT_EQ(c.duration_ms, 1500u);
  EXPECT_EQ(c.warmup_ms, 0u);
}

TEST(CellParse, RefusesUnknownKeysByName) {
  EXPECT_EQ(refusal(with(contract_cell(), "payload", 8000)), "cell: unknown key \"payload\"");
  json nested = contract_cell();
  nested["cores"]["poller"] = 3;
  EXPECT_EQ(refusal(nested), "cell: unknown key \"cores.poller\"");
  nested = contract_cell();
  nested["workload"]["gemm_dim"] = 1024;
  EXPECT_EQ(refusal(nested), "cell: unknown key \"workload.gemm_dim\"");
}

// The refusals name the registry's kinds (kinds_test.cpp holds kind_names to the registry).
TEST(CellParse, RefusesUnknownTransportAndRole) {
  EXPECT_EQ(refusal(with(contract_cell(), "transport", "sctp")),
            "cell: \"transport\" must be " + kind_names() + ", got \"sctp\"");
  EXPECT_EQ(refusal(with(contract_cell(), "role", "both")),
            "cell: \"role\" must be server, client, loopback or rank, got \"both\"");
  json missing = contract_cell();
  missing.erase("transport");
  EXPECT_EQ(refusal(missing), "cell: \"transport\" is required (" + kind_names() + ")");
  missing = contract_cell();
  missing.erase("role");
  EXPECT_EQ(refusal(missing), "cell: \"role\" is required (server, client, loopback or rank)");
}

TEST(CellParse, RefusesWrongTypes) {
  EXPECT_EQ(refusal(with(contract_cell(), "pairs", "4")), "cell: \"pairs\" must be an integer in 1..64, got \"4\"");
  EXPECT_EQ(refusal(with(contract_cell(), "pairs", 2.5)), "cell: \"pairs\" must be an integer in 1..64, got 2.5");
  EXPECT_EQ(refusal(with(contract_cell(), "tcp_nodelay", 1)), "cell: \"tcp_nodelay\" must be true or false, got 1");
  EXPECT_EQ(refusal(with(contract_cell(), "seconds", "30")), "cell: \"seconds\" must be a number of seconds, got \"30\"");
  EXPECT_EQ(refusal(with(contract_cell(), "cores", json::array())), "cell: \"cores\" must be an object, got []");
  EXPECT_EQ(refusal(json::array()), "cell: must be a JSON object, got []");
  json cores = contract_cell();
  cores["cores"]["tx"] = {16, "17"};
  EXPECT_EQ(refusal(cores), "cell: \"cores.tx[1]\" must be an integer in 0..4095, got \"17\"");
  EXPECT_EQ(refusal(with(contract_cell(), "labels", json{{"cell", 3}})), "cell: \"labels.cell\" must be a string, got 3");
}

TEST(CellParse, RefusesValuesOutOfRange) {
  EXPECT_EQ(refusal(with(contract_cell(), "pairs", 0)), "cell: \"pairs\" must be an integer in 1..64, got 0");
  EXPECT_EQ(refusal(with(contract_cell(), "pairs", 65)), "cell: \"pairs\" must be an integer in 1..64, got 65");
  EXPECT_EQ(refusal(with(contract_cell(), "base_port", 70000)), "cell: \"base_port\" must be an integer in 1..65535, got 70000");
  EXPECT_EQ(refusal(with(contract_cell(), "seconds", 0)), "cell: \"seconds\" must be in (0, 86400] seconds, got 0");
  EXPECT_EQ(refusal(with(contract_cell(), "warmup_seconds", -1)), "cell: \"warmup_seconds\" must be in 0..86400 seconds, got -1");
  EXPECT_EQ(refusal(with(contract_cell(), "connect_timeout_ms", 0)),
            "cell: \"connect_timeout_ms\" must be an integer in 1..3600000, got 0");
  EXPECT_EQ(refusal(with(contract_cell(), "target_mbps", -5)), "cell: \"target_mbps\" must be an integer in 0..100000000, got -5");
  EXPECT_EQ(refusal(with(contract_cell(), "bind_address", "any")), "cell: \"bind_address\" must be an IPv4 address, got \"any\"");
  EXPECT_EQ(refusal(with(contract_cell(), "server_address", "")), "cell: \"server_address\" must not be empty");
}

// The operator's rendezvous (control/rendezvous.hpp): rank 0 announces a literal IPv4 address under
// its pod UID; neither key means anything without the rendezvous' host:port.
TEST(CellParse, RendezvousNeedsItsAddressAndAKey) {
  json rank0 = with(with(with(contract_cell(), "rendezvous", "10.0.0.9:9445"), "rendezvous_key", "5f0c1d2e"),
                    "announce_address", "10.244.0.7");
  Cell c = parse_cell(rank0);
  EXPECT_EQ(c.rendezvous, "10.0.0.9:9445");
  EXPECT_EQ(c.rendezvous_host, "10.0.0.9");
  EXPECT_EQ(c.rendezvous_port, 9445);
  EXPECT_EQ(c.rendezvous_key, "5f0c1d2e");
  EXPECT_EQ(c.announce_address, "10.244.0.7");
  EXPECT_EQ(refusal(with(rank0, "announce_address", "$(POD_IP)")),
            "cell: \"announce_address\" must be an IPv4 address, got \"$(POD_IP)\"");
  EXPECT_EQ(refusal(with(contract_cell(), "rendezvous_key", "5f0c1d2e")),
            "cell: \"rendezvous_key\" needs rendezvous, the operator's host:port");
  EXPECT_EQ(refusal(with(contract_cell(), "rendezvous", "10.0.0.9:9445")),
            "cell: \"rendezvous_key\" must name rank 0's pod UID when rendezvous is given");
  for (const char* bad : {"manager", "manager:", ":9445", "manager:port", "manager:70000"})
    EXPECT_EQ(refusal(with(with(contract_cell(), "rendezvous", bad), "rendezvous_key", "k")),
              "cell: \"rendezvous\" must be host:port with a port in 1..65535")
        << bad;
}

TEST(CellParse, RefusesUdpPayloadOutsideOneDatagram) {
  json udp = with(contract_cell(), "transport", "udp");
  EXPECT_EQ(refusal(with(udp, "payload_bytes", 65508)),
            "cell: \"payload_bytes\" must be in 24..65507 for udp (the datagram header takes 24), got 65508");
  EXPECT_EQ(refusal(with(udp, "payload_bytes", 23)),
            "cell: \"payload_bytes\" must be in 24..65507 for udp (the datagram header takes 24), got 23");
  EXPECT_NO_THROW(parse_cell(with(udp, "payload_bytes", 65507)));
}

TEST(CellParse, RefusesOptionsOfTheOtherTransport) {
  EXPECT_NO_THROW(parse_cell(with(contract_cell(), "target_mbps", 1000))) << "tcp is paced as iperf3 -b";
  EXPECT_EQ(refusal(with(contract_cell(), "udp_gso", true)), "cell: \"udp_gso\" applies to udp only");
  EXPECT_EQ(refusal(with(contract_cell(), "udp_gro", true)), "cell: \"udp_gro\" applies to udp only");
  EXPECT_EQ(refusal(with(contract_cell(), "batch", 32)), "cell: \"batch\" must be 1 for tcp (one send() per message)");
  json udp = with(contract_cell(), "transport", "udp");
  EXPECT_EQ(refusal(with(udp, "tcp_nodelay", true)), "cell: \"tcp_nodelay\" applies to tcp only");
}

TEST(CellParse, WorkloadNoneOnlyWithoutCuda) {
  EXPECT_EQ(parse_cell(contract_cell()).workload, Workload::none);
  if (!gpu::kBuiltWithCuda) {  // the CUDA build accepts it: tests/gpu/gpu_cell_test.cpp
    EXPECT_EQ(refusal(with(contract_cell(), "workload", json{{"kind", "gemm"}})),
              "cell: \"workload.kind\" is \"gemm\", which needs a GPU: this spiral-dataplane was built without CUDA");
  }
  EXPECT_EQ(refusal(with(contract_cell(), "workload", json{{"kind", "sort"}})),
            "cell: \"workload.kind\" must be none, fft, gemm or gemm_fp16, got \"sort\"");
}

TEST(CellParse, RefusesPortLayoutsThatCannotWork) {
  EXPECT_EQ(refusal(with(with(contract_cell(), "base_port", 65534), "pairs", 4)),
            "cell: \"base_port\" leaves no room for 4 pairs below port 65535");
  EXPECT_EQ(refusal(with(contract_cell(), "control_port", 5203)),
            "cell: \"control_port\" must not be one of the data ports 5201..5204");
  EXPECT_EQ(refusal(with(contract_cell(), "base_port", 1)),
            "cell: \"base_port\" must be at least 2 unless control_port is set (it defaults to base_port - 1)");
  EXPECT_EQ(parse_cell(with(with(contract_cell(), "base_port", 1), "control_port", 9000)).control_port, 9000);
}

TEST(CellParse, RefusesWorkerCoresForSocketTransports) {
  json c = contract_cell();
  c["cores"]["tx_workers"] = {20};
  EXPECT_EQ(refusal(c),
            "cell: \"cores.tx_workers\" must be empty for socket transports: each pair's thread does its own work");
}

// A key one kind owns passes on the others at its neutral value, and every record spells it out.
TEST(CellParse, OtherKindsKeysPassOnlyAtTheirNeutralValue) {
  const json udp = with(contract_cell(), "transport", "udp");
  EXPECT_NO_THROW(parse_cell(udp)) << "tcp_nodelay false and cores.tx_workers [] on udp";
  const json copy = {{"transport", "gpucopy"}, {"role", "rank"}};
  EXPECT_NO_THROW(parse_cell(with(copy, "tcp_nodelay", false)));
  EXPECT_EQ(refusal(with(copy, "tcp_nodelay", 0)), "cell: \"tcp_nodelay\" applies to tcp only");
  const json echo = cell_to_json(parse_cell(json{{"transport", "udp"}, {"role", "client"}}));
  EXPECT_EQ(echo["tcp_nodelay"], false);
  EXPECT_EQ(echo["socket_buffer_bytes"], 0);
  EXPECT_EQ(echo["cores"]["tx_workers"], json::array());
  EXPECT_EQ(echo["cores"]["forward_rx"], json::array());
  json forward = contract_cell();
  forward["cores"]["forward_rx"] = {1};
  EXPECT_EQ(refusal(forward), "cell: \"cores.forward_rx\" applies to transport raw's forward mode only");
}

TEST(CellParse, ReadCellFileRefusesBrokenFiles) {
  EXPECT_THROW(read_cell_file("/nonexistent/cell.json"), BadInput);
  EXPECT_THROW(read_cell_file(SPIRAL_TEST_DATA "/proc_stat_before.txt"), BadInput);  // not JSON
}

}  // namespace
}  // namespace spiral
