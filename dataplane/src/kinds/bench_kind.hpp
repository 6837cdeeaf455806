#pragma once
// One bench kind: everything the shared layers (config, metrics, output, run) need to know about
// one way of moving bytes, so that none of them names a transport. There is one kind per
// transport (six today: tcp, udp, raw, roce, nccl, gpucopy); each is described in one file
// beside its transport (transports/<name>/<name>_kind.cpp) and listed once in kinds/registry.cpp.
//
// Only forward declarations here: every layer may look a kind up (kinds/registry.hpp) without
// pulling in engines, results or outputs. Fields that are plain function pointers may be null
// where the kind has nothing to add; the comments say what null means.
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sockaddr_in;

namespace spiral {

struct Cell;
class ObjectReader;
class Engine;
struct QueueCounters;
struct SideReport;
struct RunResult;
struct LatencySummary;
struct CoreBusy;

// Which way an engine moves the data: the client sends, the server receives.
enum class Direction { send, receive };

// How a run of the kind is driven (src/run/).
enum class RunMode {
  // A server (receiver) and a client (sender), two processes that meet over the control channel
  // (run/server.cpp, run/client.cpp); role loopback runs both in one process over the same channel.
  two_sided,
  // Role loopback only: one process drives both engines, no control channel (run/in_process.cpp).
  // The kind supplies the session that owns the engines and what they share.
  in_process,
  // Role rank (or loopback): this pod's share of a cell's ranks, one process each, started and
  // collected by run/ranks.cpp; the kind runs one rank (run_rank). NCCL collectives (one rank per
  // GPU) and the copy bench (one process going through the GPUs).
  ranks,
};

// The engines of an in-process run and what they share (raw: the DPDK environment and its ports).
// The run driver (run/in_process.cpp) opens it, starts and phases both engines, and reads the
// hooks below at the points it names.
class LocalSession {
 public:
  virtual ~LocalSession() = default;
  virtual Engine& sender() = 0;
  virtual Engine& receiver() = 0;
  // Opens both engines and brings the links up; traffic may start when it returns.
  virtual void open() = 0;
  // The kind's fields of the ready line (the driver adds "event" and "pid").
  virtual void ready_fields(nlohmann::json& ready) const = 0;
  // The measured window starts (before the phase moves) / the receiver's drain has ended.
  virtual void window_started() {}
  virtual void window_ended() {}  // right after the window (the sender's phase moved to drain)
  virtual void drained() {}
  // True once the sender's workers returned by themselves after the window (the driver waits
  // up to 2 s for it before stopping them).
  virtual bool sender_finished() const = 0;
  // Rate search (run/search_run.cpp): replaces both engines with new, opened ones for `trial`
  // (the trial's rate and window), tagged run_id, keeping what they share (the links) up. The
  // session keeps its own copy of `trial`.
  virtual void renew(const Cell& trial, uint32_t run_id) = 0;
  // The kind's own figures for RunResult::figures, from both sides' reports and what the
  // session measured (port counters), after both engines stopped.
  virtual void account(const Cell& cell, const SideReport& sender, const SideReport& receiver,
                       RunResult& r) const = 0;
  // The cores of the kind's own threads (raw: workers, forwarders), measured after master, tx
  // and rx (run/side_meter.cpp).
  virtual void own_cores(std::vector<CoreBusy>& cores) const { (void)cores; }
};

// A cell key that belongs to one kind, with its command-line flag (app/cli.cpp adds them all).
struct KindFlag {
  enum class Type { text, integer, number, toggle, core_list };
  const char* flag;  // "--verb"
  const char* key;   // "verb"; for core_list, the key under "cores"
  Type type;
  const char* help;
};

// A key of the kind's own that every other kind also takes at its neutral value, and echoes at
// that value, so that a cell or a record may spell out every such key whatever its transport (the
// operator's contract example in docs/dataplane.md does: tcp_nodelay false, udp_gso false, cores
// tx_workers []). Any other value on another kind is refused with `refusal`. A core list (a
// core_list flag's key) is written "cores.<key>".
struct NeutralKey {
  enum class Neutral { off, zero, empty_list };  // false, 0, []
  const char* key;
  Neutral neutral;
  const char* refusal;  // the rest of "cell: \"udp_gso\" applies to udp only"
};

struct BenchKind {
  // --- identity ---
  std::string name;        // the cell's "transport" value and the record's "transport"
  std::string backend;     // DAQIRI's CSV column "backend" (how the bytes moved): "socket-tcp"
  std::string drops_kind;  // DAQIRI's drops_kind; also that of a result the kind never accounted
  // DAQIRI's packets, bytes, pps and gbps columns count what the receiver got (its dpdk backend)
  // rather than what the sender sent (its rdma and socket backends).
  bool daqiri_counts_receiver = false;
  // The CSV's own columns the kind fills: seq_gaps (its traffic carries sequence numbers) and
  // socket_retrans (its sockets report retransmits); empty for the others.
  bool sequenced = false;
  bool socket_retrans = false;
  RunMode run_mode = RunMode::two_sided;
  // The cell may carry a rate search (config/rate_search_spec.hpp): the kind paces its sender to
  // target_mbps and its per-run accounting is exact (sent = received + lost), so one run is one trial.
  bool rate_search = false;

  // --- cell (config/cell_parse.cpp) ---
  std::set<std::string> keys;  // its own keys; refused on kinds that do not own them
  std::vector<KindFlag> flags; // its own command-line flags; a core_list flag's key is a core list of its own
  std::vector<NeutralKey> neutral_keys;  // its keys other kinds take at a neutral value
  uint32_t batch_default = 1;  // "batch" when the cell leaves it out
  uint32_t max_batch = 1024;
  bool multi_link = false;     // spreads pairs over several server_addresses (Cell::server_addresses)
  // Its engine can be opened again in the same process, so a cell may take repeats > 1 (sockets:
  // yes; DPDK's EAL starts once per process; ranks run one repeat per process).
  bool repeats_in_one_process = false;
  // Reads the kind's own keys into cell.options and checks the rules that involve them; called
  // once the common keys are read, before the foreign keys are refused. Null: no keys of its own.
  void (*parse)(const ObjectReader& r, Cell& c) = nullptr;
  // Rules that tie the common keys to the kind, after the foreign keys were refused. Throws BadInput.
  void (*check)(const Cell& c, const ObjectReader& r) = nullptr;
  // Its own keys in the echo of the cell (the record's "cell"). Null: none.
  void (*cell_json)(const Cell& c, nlohmann::json& j) = nullptr;

  // --- engines (run mode two_sided) ---
  // The engine of one direction; run_id tags this run's traffic.
  std::unique_ptr<Engine> (*make_engine)(const Cell& c, Direction d, uint32_t run_id) = nullptr;
  // Client, once per link before it connects: refuses (BadInput) what the route to that link's
  // server address cannot carry (udp: payload over the path MTU); netdev is the interface the
  // route leaves by, "" when unknown. The client then tells the server, so both end at once.
  void (*client_preflight)(const Cell& c, const sockaddr_in& to, const std::string& netdev) = nullptr;
  // Server, during the grace period: the receiver has everything the sender reported sending,
  // so the drain can end early.
  bool (*caught_up)(const Cell& c, const std::vector<QueueCounters>& rx, const SideReport& sender) = nullptr;

  // --- in-process run (run mode in_process) ---
  std::unique_ptr<LocalSession> (*make_session)(const Cell& c, uint32_t run_id) = nullptr;

  // --- ranks (run mode ranks) ---
  // How many processes this pod runs (NCCL: one per GPU of the pod).
  uint32_t (*local_ranks)(const Cell& c) = nullptr;
  // One process's part, in a child process of run/ranks.cpp: local is its index in the pod;
  // listening(c) is called once peers may connect (the pod's ready file). Returns
  // {"state": "Valid"|"Invalid"|"Failed", "reason": ..., "figures": {...}}; the figures of local 0
  // become RunResult::figures (a nlohmann::json), which summary_fields and record_fields report.
  // Throws BadInput (refused before anything ran) or RunFailure.
  nlohmann::json (*run_rank)(const Cell& c, uint32_t local, void (*listening)(const Cell& c)) = nullptr;

  // --- accounting (metrics/run_result.cpp) ---
  // The receiver's rates use the sender's window: its traffic is tagged with the sender's phase.
  bool sender_timed = false;
  // drops, drops_kind, loss_ppm and the kind's figures (RunResult::figures) from both sides'
  // reports, after the shared sums; either report may be missing when a run failed half-way.
  void (*account)(const Cell& c, const SideReport* sender, const SideReport* receiver, RunResult& r) = nullptr;

  // --- verdict (metrics/verdict.cpp) ---
  // Why a run that completed does not measure what it claims, after the shared checks (counters
  // consistent, bytes both ways); nullopt when it does.
  std::optional<std::string> (*verdict)(const Cell& c, const RunResult& r) = nullptr;

  // --- outputs (output/) ---
  // Adds the kind's fields to the JSON record / the summary (after the shared ones). Null: none.
  void (*record_fields)(const Cell& c, const RunResult& r, nlohmann::ordered_json& record) = nullptr;
  void (*summary_fields)(const Cell& c, const RunResult& r, nlohmann::ordered_json& summary) = nullptr;
  // The round-trip percentiles of a run in the kind's latency (ping-pong) mode, null otherwise:
  // the summary's lat_* fields and the CSV's lat_* columns come from here. Null: no latency mode.
  const LatencySummary* (*latency)(const Cell& c, const RunResult& r) = nullptr;

  // --- contract (app/describe.cpp, spiral-dataplane --describe-kinds) ---
  // The spellings the kind accepts for its enumerated keys, key -> list (nccl: "op", "data_type",
  // "reduce_op"), so the operator's tests hold its own spellings to these. Null: none.
  void (*vocabulary)(nlohmann::ordered_json& out) = nullptr;
};

}  // namespace spiral
