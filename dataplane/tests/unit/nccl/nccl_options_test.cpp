#include "transports/nccl/nccl_options.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "config/cell_parse.hpp"
#include "sys/errors.hpp"

namespace spiral::nccl {
namespace {

Cell parsed(nlohmann::json extra) {
  nlohmann::json j = {{"transport", "nccl"}, {"role", "rank"}};
  j.update(extra);
  return parse_cell(j);
}

std::string refusal(nlohmann::json extra) {
  try {
    parsed(std::move(extra));
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

TEST(NcclOptions, TheOperatorsFlagsBecomeASweep) {
  const Cell c = parsed({{"op", "all_gather"}, {"min_bytes", 8}, {"max_bytes", 134217728}, {"step_factor", 2},
                         {"iterations", 30}, {"warmup_iterations", 5}, {"gpus", 1}, {"first_rank", 1}, {"nranks", 2},
                         {"network", "rdma"}, {"socket_ifname", "net1"}, {"placement", "out_of_place"}});
  const NcclOptions& o = nccl_options(c);
  EXPECT_EQ(o.spec.collective, Collective::all_gather);
  EXPECT_EQ(sizes(o.spec.sweep).size(), 25u);
  EXPECT_EQ(o.spec.iterations, 30);
  EXPECT_FALSE(o.spec.in_place);
  EXPECT_EQ(o.first_rank, 1);
  EXPECT_EQ(o.network, NcclOptions::Network::rdma);
  EXPECT_EQ(c.kind->local_ranks(c), 1u);
}

TEST(NcclOptions, NcclTests219OptionsReachTheSweep) {
  const NcclOptions d = nccl_options(parsed(nlohmann::json::object()));
  EXPECT_EQ(d.spec.unalign, 0);
  EXPECT_EQ(d.spec.blocking, Blocking::none);
  EXPECT_EQ(d.spec.timeout_s, 0);
  EXPECT_EQ(d.spec.registration, Registration::none);
  const Cell c = parsed({{"unalign", 3}, {"blocking", "wait_untimed_barrier"}, {"timeout_s", 60},
                         {"registration", "symmetric"}});
  const NcclOptions& o = nccl_options(c);
  EXPECT_EQ(o.spec.unalign, 3);
  EXPECT_EQ(o.spec.blocking, Blocking::wait_untimed_barrier);
  EXPECT_EQ(o.spec.timeout_s, 60);
  EXPECT_EQ(o.spec.registration, Registration::symmetric);
  nlohmann::json echoed;
  c.kind->cell_json(c, echoed);
  EXPECT_EQ(echoed["blocking"], "wait_untimed_barrier");
  EXPECT_EQ(echoed["registration"], "symmetric");
  EXPECT_EQ(echoed["unalign"], 3);
  EXPECT_EQ(echoed["timeout_s"], 60);
  EXPECT_EQ(nccl_options(parsed({{"blocking", "wait_barrier"}})).spec.blocking, Blocking::wait_barrier);
  EXPECT_EQ(nccl_options(parsed({{"blocking", "wait"}})).spec.blocking, Blocking::wait);
  EXPECT_EQ(nccl_options(parsed({{"registration", "local"}})).spec.registration, Registration::local);
  EXPECT_EQ(refusal({{"blocking", "3"}}),
            "cell: \"blocking\" must be none, wait_barrier, wait or wait_untimed_barrier, got \"3\"");
  EXPECT_EQ(refusal({{"registration", "window"}}), "cell: \"registration\" must be none, local or symmetric, got \"window\"");
  EXPECT_NE(refusal({{"unalign", 1025}}).find("\"unalign\""), std::string::npos);
  EXPECT_NE(refusal({{"timeout_s", -1}}).find("\"timeout_s\""), std::string::npos);
}

TEST(NcclOptions, AllToAllvTrafficComesFromASpreadOrAMatrix) {
  EXPECT_DOUBLE_EQ(nccl_options(parsed({{"op", "alltoallv"}})).spec.alltoallv.spread, 1.0);  // nccl-tests' default
  const Cell half = parsed({{"op", "alltoallv"}, {"alltoallv_spread_percent", 50}});
  EXPECT_DOUBLE_EQ(nccl_options(half).spec.alltoallv.spread, 0.5);
  const Cell m = parsed({{"op", "alltoallv"}, {"alltoallv_matrix", "100 200;50 100"}, {"nranks", 2}, {"gpus", 2},
                         {"min_bytes", 1024}, {"max_bytes", 1024}});
  EXPECT_EQ(nccl_options(m).spec.alltoallv.dim, 2);
  nlohmann::json echoed;
  m.kind->cell_json(m, echoed);
  EXPECT_EQ(echoed["alltoallv_matrix"], "96 192;48 96");
  EXPECT_EQ(refusal({{"op", "alltoall"}, {"alltoallv_spread_percent", 0}}),
            "cell: \"alltoallv_spread_percent\" applies to op alltoallv only: remove it");
  EXPECT_EQ(refusal({{"op", "alltoallv"}, {"alltoallv_matrix", "1 2 3"}}),
            "cell: \"alltoallv_matrix\" traffic matrix: 3 values do not make a square matrix");
  EXPECT_EQ(refusal({{"op", "alltoallv"}, {"alltoallv_matrix", "64"}}),
            "cell: \"alltoallv_matrix\" a traffic matrix fixes every size: set min_bytes equal to max_bytes "
            "(nccl-tests -b = -e)");
  EXPECT_NE(refusal({{"op", "alltoallv"}, {"alltoallv_matrix", "64"}, {"nranks", 2}, {"min_bytes", 64}, {"max_bytes", 64}})
                .find("1x1 but the cell has 2 ranks"),
            std::string::npos);
  EXPECT_NE(refusal({{"op", "alltoallv"}, {"alltoallv_spread_percent", 101}}).find("alltoallv_spread_percent"),
            std::string::npos);
}

TEST(NcclOptions, SplitGroupsTheRanks) {
  const Cell c = parsed({{"split", "MOD 2"}, {"nranks", 4}, {"gpus", 4}});
  EXPECT_EQ(to_string(nccl_options(c).spec.split), "MOD 2");
  nlohmann::json echoed;
  c.kind->cell_json(c, echoed);
  EXPECT_EQ(echoed["split"], "MOD 2");
  EXPECT_NE(refusal({{"split", "MOD 4"}, {"nranks", 6}, {"gpus", 6}}).find("groups of different sizes"), std::string::npos);
  EXPECT_EQ(refusal({{"split", "XOR 1"}}).rfind("cell: \"split\" split \"XOR 1\": want AND, OR, MOD or DIV", 0), 0u);
}

TEST(NcclOptions, RefusalsNameTheKeyAndWhatToChange) {
  EXPECT_EQ(refusal({{"op", "allgather"}}).rfind("cell: \"op\" unknown NCCL operation \"allgather\"", 0), 0u);
  EXPECT_EQ(refusal({{"nranks", 2}, {"root", 2}}), "cell: \"root\" must be a rank below nranks 2");
  EXPECT_EQ(refusal({{"gpus", 4}, {"first_rank", 2}, {"nranks", 4}}),
            "cell: \"first_rank\" plus gpus (2 + 4) exceeds nranks 4");
  EXPECT_EQ(refusal({{"ib_hcas", "mlx5_0"}}), "cell: \"ib_hcas\" selects RDMA devices: set network rdma, or remove ib_hcas");
  EXPECT_NE(refusal({{"min_bytes", 1024}, {"max_bytes", 8}}).find("\"max_bytes\""), std::string::npos);
  EXPECT_EQ(refusal({{"role", "server"}}), "cell: \"role\" is server, but nccl runs as ranks: use role rank (or loopback)");
  EXPECT_EQ(refusal({{"op", "sendrecv"}, {"placement", "in_place"}}),
            "cell: \"placement\" NCCL defines no in-place sendrecv, so nothing would be checked: use out_of_place "
            "or both (or check_iterations 0)");
  EXPECT_NE(refusal({{"op", "alltoall"}, {"placement", "in_place"}, {"check_iterations", 2}}), "");
  EXPECT_EQ(refusal({{"op", "alltoall"}, {"placement", "in_place"}, {"check_iterations", 0}}), "");  // timed only
  EXPECT_EQ(refusal({{"op", "all_gather"}, {"placement", "in_place"}}), "");
  const std::string foreign = refusal({{"verb", "send"}});
  EXPECT_NE(foreign, "") << "roce's key is foreign to nccl";
  EXPECT_EQ(foreign.find("unknown key"), std::string::npos) << foreign;
}

// RDMA devices as a pod sees them: a directory shaped like sysfs' class/infiniband (a stand-in
// for a pod's, this machine has none).
TEST(NcclOptions, RdmaNetworkTakesTheVisibleDevicesUnlessNamed) {
  const auto root = std::filesystem::temp_directory_path() / ("spiral-ib-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "class/infiniband/rocep1s0f1");
  std::filesystem::create_directories(root / "class/infiniband/rocep1s0f0");
  NcclOptions o;
  o.network = NcclOptions::Network::rdma;
  EXPECT_EQ(network_choice(o, root.string()).rdma_devices, (std::vector<std::string>{"rocep1s0f0", "rocep1s0f1"}));
  EXPECT_TRUE(network_choice(o, root.string()).require_rdma);
  o.ib_hcas = {"roceP2p1s0f0"};
  EXPECT_EQ(network_choice(o, root.string()).rdma_devices, (std::vector<std::string>{"roceP2p1s0f0"}));
  o.network = NcclOptions::Network::socket;
  o.ib_hcas.clear();
  EXPECT_TRUE(network_choice(o, root.string()).disable_ib);
  EXPECT_TRUE(network_choice(o, root.string()).rdma_devices.empty());
  std::filesystem::remove_all(root);
}

TEST(GpucopyOptions, ListsAndRefusals) {
  const Cell c = parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}, {"directions", "h2d,d2d"},
                             {"host_memory", "pinned"}, {"max_bytes", 8388608}, {"devices", "0,1"}});
  EXPECT_EQ(c.kind->local_ranks(c), 1u);
  try {
    parse_cell({{"transport", "gpucopy"}, {"role", "loopback"}, {"directions", "h2h"}});
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "cell: \"directions\" unknown copy direction \"h2h\" (known: h2d, d2h, d2d)");
  }
}

}  // namespace
}  // namespace spiral::nccl
