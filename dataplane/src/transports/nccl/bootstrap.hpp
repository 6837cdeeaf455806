#pragma once
// How N ranks of one NCCL cell learn rank 0's ncclUniqueId: over the data plane's own control
// channel (newline-delimited JSON over TCP, control/channel.hpp), no MPI and no SSH.
//
//   rank r>0 -> rank 0:  {"type":"nccl_hello","cell":ID,"rank":r,"nranks":N}
//   rank 0 -> rank r>0:  {"type":"nccl_id","id":"<256 hex digits>"}   once all N-1 arrived
//                        {"type":"error","reason":...}                 when the cell fails
//   after the run, rank r>0 -> rank 0: {"type":"nccl_report","rank":r,"report":{...}}
//
// Every wait ends at the cell's deadline with a RunFailure that names the missing ranks, so a
// rank that never arrives fails the cell within its timeout instead of hanging it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/channel.hpp"
#include "sys/clock.hpp"

namespace spiral::nccl {

constexpr size_t kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES (static_assert in the NCCL code)
using UniqueId = std::array<uint8_t, kUniqueIdBytes>;

std::string to_hex(const UniqueId& id);
UniqueId unique_id_from_hex(const std::string& hex);  // throws RunFailure on a malformed id

struct BootstrapSpec {
  std::string cell;   // the cell's name: a rank of another cell is refused
  int rank = 0;
  int nranks = 1;
  std::string root_host;  // rank 0's address (ranks > 0)
  uint16_t root_port = 0;
  Millis timeout{30000};  // for the whole exchange
};

// Rank 0: the other ranks' control channels, index r-1 for rank r, kept open for the reports.
class RootSession {
 public:
  // Accepts ranks 1..N-1 on listen_fd and sends them `id`. Throws RunFailure when a rank has not
  // arrived by the deadline (naming it) or a rank of another cell or size connects; the ranks that
  // did arrive are told why before the throw.
  static RootSession serve(int listen_fd, const BootstrapSpec& spec, const UniqueId& id);
  // Every other rank's report, index r-1; throws RunFailure naming ranks silent past `wait`.
  std::vector<nlohmann::json> gather_reports(Millis wait);
  // Tells every rank the cell failed (best effort: a rank may already be gone).
  void fail_all(const std::string& reason);

 private:
  explicit RootSession(std::vector<ControlChannel> peers) : peers_(std::move(peers)) {}
  std::vector<ControlChannel> peers_;
};

// Ranks > 0.
class RankSession {
 public:
  // Connects to rank 0 (retrying until the deadline while it starts), says hello and waits for
  // the id. Throws RunFailure naming rank 0's address when it is unreachable or silent.
  static RankSession join(const BootstrapSpec& spec);
  const UniqueId& unique_id() const { return id_; }
  void send_report(const nlohmann::json& report);

 private:
  RankSession(ControlChannel channel, int rank, UniqueId id) : channel_(std::move(channel)), rank_(rank), id_(id) {}
  ControlChannel channel_;
  int rank_;
  UniqueId id_;
};

}  // namespace spiral::nccl
