// Raw transport: every bad input is refused at the edge with one clear line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "app/cli.hpp"
#include "sys/errors.hpp"
#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "kinds/registry.hpp"
#include "config/object_reader.hpp"
#include "transports/raw/raw_parse.hpp"
#include "transports/raw/raw_options.hpp"
#include "transports/raw/raw_port.hpp"
#include "transports/raw/eal_plan.hpp"
#include "transports/raw/frame.hpp"

#include "cell_refusal.hpp"

namespace spiral {
namespace {

using nlohmann::json;

json raw_cell() {
  return json{{"transport", "raw"}, {"role", "loopback"}, {"tx_port", "net_ring0"}, {"rx_port", "net_ring0"}};
}

using spiral::testing::with;
using spiral::testing::refusal;

#ifdef SPIRAL_HAVE_DPDK
#define REQUIRE_DPDK_BUILD()
#else
#define REQUIRE_DPDK_BUILD() GTEST_SKIP() << "built without DPDK: every raw cell is refused"
#endif

TEST(RawOptions, OperatorCellParsesAndRoundTrips) {
  REQUIRE_DPDK_BUILD();
  json j = raw_cell();
  j["tx_port"] = "0000:01:00.0";
  j["rx_port"] = "0000:01:00.1,txq_inline_max=0";
  j["tx_queues"] = 2;
  j["rx_queues"] = 2;
  j["batch"] = 1024;
  j["ring_descriptors"] = 4096;
  j["pool_buffers"] = 16383;
  j["payload_bytes"] = 8000;
  j["cores"] = {{"master", 8}, {"tx", {16, 19}}, {"rx", {18, 9}}, {"tx_workers", {15}}, {"rx_workers", {17}}};
  const Cell c = parse_cell(j);
  EXPECT_EQ(c.kind->name, "raw");
  EXPECT_EQ(raw_options(c).tx_queues, 2u);
  EXPECT_EQ(raw_options(c).ring_descriptors, 4096u);
  EXPECT_EQ(c.batch, 1024u);
  EXPECT_EQ(c.cores.list("rx_workers"), std::vector<int>{17});
  EXPECT_EQ(raw_options(parse_cell(cell_to_json(c))).rx_port, raw_options(c).rx_port) << "a record re-runs from its cell";
}

TEST(RawOptions, EveryBadInputSaysWhatIsWrong) {
  REQUIRE_DPDK_BUILD();
  const json base = raw_cell();
  struct Case {
    json cell;
    const char* says;
  } cases[] = {
      {with(base, "tx_port", "0000:01:00.9"), "bad PCI address \"0000:01:00.9\""},
      {with(base, "tx_port", "01:00.0.0"), "bad PCI address"},
      {with(base, "rx_port", "0000:1:00.0"), "bad PCI address"},
      {with(base, "tx_port", "net_foo0"), "unknown vdev driver \"net_foo\""},
      {with(base, "tx_port", "eth0"), "neither a PCI address nor a DPDK vdev"},
      {with(base, "rx_port", ""), "\"rx_port\" is required"},
      {with(base, "tx_port", "net_ring0,,x=1"), "empty device argument"},
      {with(base, "tx_port", "net_af_packet0,iface=a,netns=../x"), "bad netns"},
      {with(base, "tx_port", "0000:01:00.0,netns=a"), "netns= applies to virtual devices only"},
      {with(base, "memory", "device"), "device needs a GPUDirect-capable NIC"},
      {with(with(with(base, "memory", "device"), "tx_port", "0000:01:00.0"), "rx_port", "net_ring0"),
       "rx_port net_ring0 is a virtual device"},
      {with(base, "memory", "gpu"), "must be host, host_pinned or device"},
      {with(base, "batch", 2048), "batch\" 2048 is larger than the ring: ring_descriptors is 1024"},
      {with(base, "batch", 40000), "1..32768"},
      {with(with(base, "batch", 512), "pool_buffers", 1500), "cannot keep a ring full"},
      {with(base, "tx_queues", 0), "1..16"},
      {with(base, "payload_bytes", 9000), "24..8972 for raw"},
      {with(base, "payload_bytes", 10), "24..8972 for raw"},
      {with(base, "role", "server"), "must be loopback for transport raw"},
      {with(base, "pairs", 2), "use tx_queues and rx_queues"},
      {with(base, "udp_gso", true), "applies to udp only"},
      {with(base, "socket_buffer_bytes", 1024), "applies to tcp and udp only"},
      {with(json{{"transport", "udp"}, {"role", "client"}}, "tx_port", "net_ring0"), "applies to transport raw only"},
      {with(json{{"transport", "tcp"}, {"role", "client"}}, "no_huge", true), "applies to transport raw only"},
  };
  for (const auto& c : cases) EXPECT_NE(refusal(c.cell).find(c.says), std::string::npos) << refusal(c.cell);
  const json pci = with(with(base, "tx_port", "0000:01:00.0"), "rx_port", "0000:01:00.1");
  EXPECT_NE(refusal(with(pci, "memory", "device")).find("no gpudev path"), std::string::npos);
  EXPECT_EQ(refusal(with(base, "memory", "host_pinned")), "(accepted)") << "host_pinned needs no CUDA without a workload";
}

TEST(RawOptions, PortsFromTheDevicePluginsVariable) {
  REQUIRE_DPDK_BUILD();
  ::setenv("PCIDEVICE_NVIDIA_COM_CX7_P0", "0000:01:00.2, 0000:01:00.3", 1);
  ::setenv("PCIDEVICE_EMPTY", "", 1);
  ::unsetenv("PCIDEVICE_NOT_THERE");
  json j = with(raw_cell(), "tx_port", "env:PCIDEVICE_NVIDIA_COM_CX7_P0");
  EXPECT_EQ(raw_options(parse_cell(j)).tx_port, "0000:01:00.2") << "the first of the allocated devices";
  EXPECT_NE(refusal(with(raw_cell(), "rx_port", "env:PCIDEVICE_NOT_THERE")).find("$PCIDEVICE_NOT_THERE is not set"),
            std::string::npos);
  EXPECT_NE(refusal(with(raw_cell(), "rx_port", "env:PCIDEVICE_EMPTY")).find("is empty"), std::string::npos);
  ::setenv("PCIDEVICE_BAD", "0000:01:00.9", 1);
  EXPECT_NE(refusal(with(raw_cell(), "tx_port", "env:PCIDEVICE_BAD")).find("bad PCI address"), std::string::npos);
}

TEST(RawOptions, GpuWorkloadOnRawFollowsTheBuild) {
  REQUIRE_DPDK_BUILD();
#if SPIRAL_HAVE_CUDA
  EXPECT_EQ(refusal(with(raw_cell(), "workload", json{{"kind", "fft"}})), "(accepted)");
#else
  EXPECT_NE(refusal(with(raw_cell(), "workload", json{{"kind", "fft"}})).find("built without CUDA"),
            std::string::npos);
#endif
}

TEST(RawOptions, WorkersAreForRawOnly) {
  json udp = {{"transport", "udp"}, {"role", "client"}, {"cores", {{"tx_workers", {1}}}}};
  EXPECT_NE(refusal(udp).find("must be empty for socket transports"), std::string::npos);
}

TEST(RawPorts, SyntaxAndNamespaces) {
  const PortSpec pci = parse_port("tx_port", "01:00.1,txq_inline_max=0");
  EXPECT_EQ(pci.kind, PortSpec::Kind::pci);
  EXPECT_EQ(pci.name, "0000:01:00.1");
  EXPECT_EQ(pci.devargs, "0000:01:00.1,txq_inline_max=0");
  EXPECT_FALSE(pci.is_virtual());
  const PortSpec veth = parse_port("tx_port", "net_af_packet0,iface=v0,netns=sbw-a,qpairs=2");
  EXPECT_EQ(veth.driver, "net_af_packet");
  EXPECT_EQ(veth.name, "net_af_packet0");
  EXPECT_EQ(veth.netns, "sbw-a");
  EXPECT_EQ(veth.devargs, "net_af_packet0,iface=v0,qpairs=2") << "netns= is ours, not DPDK's";
  EXPECT_TRUE(parse_port("rx_port", "net_memif1,role=server,socket=/tmp/m.sock").is_virtual());
}

TEST(RawCli, FlagsSetTheRawKeys) {
  std::vector<const char*> args = {"spiral-dataplane", "loopback", "--transport", "raw", "--tx-port", "net_ring0",
                                   "--rx-port", "net_ring1", "--tx-queues", "2", "--rx-queues", "1", "--memory",
                                   "host", "--ring-descriptors", "2048", "--pool-buffers", "9000", "--no-huge",
                                   "--tx-workers", "2,3", "--rx-workers", "4", "--batch", "256"};
  std::ostringstream out;
  auto j = parse_command_line(static_cast<int>(args.size()), args.data(), out);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["tx_port"], "net_ring0");
  EXPECT_EQ((*j)["rx_queues"], 1);
  EXPECT_EQ((*j)["ring_descriptors"], 2048);
  EXPECT_EQ((*j)["pool_buffers"], 9000);
  EXPECT_EQ((*j)["no_huge"], true);
  EXPECT_EQ((*j)["cores"]["tx_workers"], json({2, 3}));
  EXPECT_EQ((*j)["cores"]["rx_workers"], json({4}));
}

TEST(RawEal, HugepagesWhenMountedElsePlainMemory) {
  Cell cell;
  cell.kind = &kind_named("raw");
  RawOptions options;
  options.tx_port = options.rx_port = "net_ring0";
  cell.options = options;
  const PortSpec ring = parse_port("tx_port", "net_ring0");
  const auto pools = raw::pool_sizes(cell, ring, ring, raw::frame_bytes(64));
  EXPECT_EQ(pools.spare_pool_buffers, 0u) << "one port: no unpolled RX queues";
  auto plan = raw::plan_eal(cell, ring, ring, pools, {true, 8ull << 30}, {2}, "spiral-7");
  EXPECT_TRUE(plan.hugepages);
  auto has = [&](const std::string& a) { return std::find(plan.args.begin(), plan.args.end(), a) != plan.args.end(); };
  EXPECT_TRUE(has("--in-memory"));
  EXPECT_TRUE(has("--file-prefix=spiral-7"));
  EXPECT_TRUE(has("--no-pci"));
  EXPECT_TRUE(has("--lcores=0@(2)"));
  EXPECT_FALSE(has("--no-huge"));
  plan = raw::plan_eal(cell, ring, ring, pools, {false, 0}, {0, 1}, "p");
  EXPECT_FALSE(plan.hugepages);
  EXPECT_TRUE(has("--no-huge"));
  EXPECT_TRUE(has("--no-shconf")) << "--in-memory refuses --no-huge's legacy memory";
  EXPECT_TRUE(has("--lcores=0@(0,1)"));
  std::any_cast<RawOptions&>(cell.options).no_huge = true;
  plan = raw::plan_eal(cell, ring, ring, pools, {true, 8ull << 30}, {0}, "p");
  EXPECT_FALSE(plan.hugepages);
  std::any_cast<RawOptions&>(cell.options).no_huge = false;
  EXPECT_THROW(raw::plan_eal(cell, ring, ring, pools, {true, 2u << 20}, {0}, "p"), BadInput);
  const PortSpec a = parse_port("tx_port", "0000:01:00.0"), b = parse_port("rx_port", "0000:01:00.1");
  plan = raw::plan_eal(cell, a, b, raw::pool_sizes(cell, a, b, 106), {false, 0}, {0}, "p");
  EXPECT_TRUE(has("0000:01:00.0"));
  EXPECT_TRUE(has("0000:01:00.1"));
  EXPECT_FALSE(has("--no-pci"));
}

TEST(RawEal, AfPacketFramesMustFitItsFrameSize) {
  Cell cell;
  cell.payload_bytes = 8000;
  const PortSpec small = parse_port("tx_port", "net_af_packet0,iface=v0");
  const PortSpec large = parse_port("rx_port", "net_af_packet1,iface=v1,blocksz=20480,framesz=10240");
  try {
    raw::pool_sizes(cell, small, large, raw::frame_bytes(8000));
    FAIL() << "accepted 8042-byte frames with framesz 2048";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("framesz=2048 carries frames up to 2016 bytes"), std::string::npos);
  }
  const auto pools = raw::pool_sizes(cell, large, large, raw::frame_bytes(8000));
  EXPECT_GE(pools.rx_data_room, 10240u - 32 + 128) << "af_packet refuses RX mbufs smaller than its frames";
}

// A raw cell of 8000 B frames, batch 256, host_pinned memory over these ports, no workload yet.
Cell pinned_raw_cell(RawOptions& options, const std::string& tx_port, const std::string& rx_port) {
  Cell cell;
  cell.kind = &kind_named("raw");
  cell.payload_bytes = 8000;
  cell.batch = 256;
  options.tx_port = tx_port;
  options.rx_port = rx_port;
  options.memory = BufferMemory::host_pinned;
  cell.options = options;
  return cell;
}

// Gives the cell a GPU workload of 1 MiB windows, 2 in flight: 1 MiB / 7976 B = 131 slots (+1),
// 3 windows (max_in_flight + 1) of 1 stream, plus 2 bursts held. Set directly: a CPU build's
// parser refuses GPU workloads.
constexpr uint32_t kHeldFor1MiBWindows = 3u * 132 + 2 * 256;
void give_gpu_workload(Cell& cell, Workload w) {
  cell.workload = w;
  cell.workload_batch_bytes = 1 << 20;
  cell.max_in_flight = 2;
}

TEST(RawEal, AGpuWorkloadInPlaceGrowsTheReceivePoolsByWhatItHolds) {
  RawOptions options;
  Cell cell = pinned_raw_cell(options, "net_memif0,role=client", "net_memif1,role=server");
  const PortSpec tx = parse_port("tx_port", options.tx_port), rx = parse_port("rx_port", options.rx_port);
  const auto bare = raw::pool_sizes(cell, tx, rx, raw::frame_bytes(8000));
  EXPECT_EQ(bare.gpu_held_buffers, 0u) << "no workload: nothing held";
  give_gpu_workload(cell, Workload::gemm);
  const auto gpu = raw::pool_sizes(cell, tx, rx, raw::frame_bytes(8000));
  EXPECT_EQ(gpu.gpu_held_buffers, kHeldFor1MiBWindows);
  EXPECT_EQ(gpu.rx_pool_buffers, bare.rx_pool_buffers + gpu.gpu_held_buffers);
  EXPECT_EQ(gpu.tx_pool_buffers, options.pool_buffers) << "memif copies: the sender's pool holds nothing";
  std::any_cast<RawOptions&>(cell.options).memory = BufferMemory::host;  // staged: mbufs freed at once
  EXPECT_EQ(raw::pool_sizes(cell, tx, rx, raw::frame_bytes(8000)).gpu_held_buffers, 0u);
  std::any_cast<RawOptions&>(cell.options).memory = BufferMemory::host_pinned;
  cell.payload_bytes = 64;
  cell.workload_batch_bytes = 64 << 20;
  try {
    raw::pool_sizes(cell, tx, rx, raw::frame_bytes(64));
    FAIL() << "accepted holding millions of mbufs";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("lower workload_batch_bytes"), std::string::npos) << e.what();
  }
}

// net_ring enqueues the sender's mbufs on the receiver's ring: what the GPU holds in place is
// drawn from the TX pools, so they grow instead of the RX pools (which net_ring never fills).
TEST(RawEal, OverNetRingAGpuWorkloadInPlaceGrowsTheSendPools) {
  RawOptions options;
  Cell cell = pinned_raw_cell(options, "net_ring0", "net_ring0");
  const PortSpec ring = parse_port("tx_port", options.tx_port);
  EXPECT_TRUE(raw::receiver_gets_sender_mbufs(ring));
  EXPECT_FALSE(raw::receiver_gets_sender_mbufs(parse_port("tx_port", "net_memif0,role=client")));
  const auto bare = raw::pool_sizes(cell, ring, ring, raw::frame_bytes(8000));
  EXPECT_EQ(bare.tx_pool_buffers, options.pool_buffers);
  give_gpu_workload(cell, Workload::fft);
  const auto gpu = raw::pool_sizes(cell, ring, ring, raw::frame_bytes(8000));
  EXPECT_EQ(gpu.gpu_held_buffers, kHeldFor1MiBWindows);
  EXPECT_EQ(gpu.tx_pool_buffers, options.pool_buffers + gpu.gpu_held_buffers);
  EXPECT_EQ(gpu.rx_pool_buffers, bare.rx_pool_buffers);
  EXPECT_GT(gpu.bytes, bare.bytes) << "the EAL's budget counts the grown pools";
}

// A GPU workload reading net_ring frames in place was refused while the sender's pools were
// outside the registered receive memory; now they are made in it. What still cannot work on a
// virtual port (device memory) is still refused. check_raw directly: a CPU build's parser
// refuses every GPU workload before it gets there.
TEST(RawOptions, InPlaceGpuWorkloadOverNetRingIsAccepted) {
  REQUIRE_DPDK_BUILD();
  const json keys = {{"tx_port", "net_ring0"}, {"rx_port", "net_ring0"}, {"memory", "host_pinned"}};
  Cell c = parse_cell(with(raw_cell(), "memory", "host_pinned"));
  c.workload = Workload::fft;
  const ObjectReader r(keys, "", kRawKeys);
  EXPECT_NO_THROW(check_raw(c, r));
  std::any_cast<RawOptions&>(c.options).memory = BufferMemory::device;
  try {
    check_raw(c, r);
    FAIL() << "accepted device memory on net_ring";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("tx_port net_ring0 is a virtual device"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spiral
