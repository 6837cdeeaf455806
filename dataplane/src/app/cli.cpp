#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "app/describe.hpp"
#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "sys/errors.hpp"
#include "kinds/registry.hpp"

namespace spiral {
namespace {

using nlohmann::json;

// Each flag writes its value into the cell object only when given.
class FlagTable {
 public:
  explicit FlagTable(CLI::App& app) : app_(app) {}

  template <typename T>
  void add(const std::string& flag, const std::string& key, const std::string& help) {
    auto value = std::make_shared<T>();
    CLI::Option* opt = app_.add_option(flag, *value, help);
    setters_.push_back([opt, value, key](json& cell) {
      if (opt->count()) cell[key] = *value;
    });
  }
  void add_list(const std::string& flag, const std::string& key, const std::string& help) {
    auto value = std::make_shared<std::vector<int>>();
    CLI::Option* opt = app_.add_option(flag, *value, help)->delimiter(',');
    setters_.push_back([opt, value, key](json& cell) {
      if (opt->count()) cell["cores"][key] = *value;
    });
  }
  void add_strings(const std::string& flag, const std::string& key, const std::string& help) {
    auto value = std::make_shared<std::vector<std::string>>();
    CLI::Option* opt = app_.add_option(flag, *value, help)->delimiter(',');
    setters_.push_back([opt, value, key](json& cell) {
      if (opt->count()) cell[key] = *value;
    });
  }
  void add_switch(const std::string& flag, const std::string& key, const std::string& help) {
    auto value = std::make_shared<bool>(false);
    CLI::Option* opt = app_.add_flag(flag, *value, help + " (" + flag + "=false turns it off)");
    setters_.push_back([opt, value, key](json& cell) {
      if (opt->count()) cell[key] = *value;
    });
  }
  // A key of the cell's object `object` ("search"): --search-lower-mbps sets search.lower_mbps.
  template <typename T>
  void add_in(const std::string& object, const std::string& flag, const std::string& key, const std::string& help) {
    auto value = std::make_shared<T>();
    CLI::Option* opt = app_.add_option(flag, *value, help);
    setters_.push_back([opt, value, object, key](json& cell) {
      if (opt->count()) cell[object][key] = *value;
    });
  }
  void add_custom(std::function<void(json&)> setter) { setters_.push_back(std::move(setter)); }
  void apply(json& cell) const {
    for (const auto& set : setters_) set(cell);
  }

 private:
  CLI::App& app_;
  std::vector<std::function<void(json&)>> setters_;
};

// Each kind's own flags, once each; a flag two kinds share says so ("raw, roce: ...").
void add_kind_flags(FlagTable& flags) {
  std::vector<std::pair<KindFlag, std::string>> unique;  // the flag and the kinds that bring it
  for (const BenchKind* kind : bench_kinds())
    for (const KindFlag& f : kind->flags) {
      auto same = std::find_if(unique.begin(), unique.end(),
                               [&](const auto& u) { return std::string(u.first.flag) == f.flag; });
      if (same == unique.end()) unique.push_back({f, kind->name});
      else same->second += ", " + kind->name;
    }
  for (const auto& [f, kinds] : unique) {
    const std::string help = kinds + ": " + f.help;
    switch (f.type) {
      case KindFlag::Type::text: flags.add<std::string>(f.flag, f.key, help); break;
      case KindFlag::Type::integer: flags.add<int64_t>(f.flag, f.key, help); break;
      case KindFlag::Type::number: flags.add<double>(f.flag, f.key, help); break;
      case KindFlag::Type::toggle: flags.add_switch(f.flag, f.key, help); break;
      case KindFlag::Type::core_list: flags.add_list(f.flag, f.key, help); break;
    }
  }
}

// The rate search (docs/ndr-search.md): --search turns it on with its defaults, any --search-*
// flag turns it on with that setting.
void add_search_flags(CLI::App& app, FlagTable& flags) {
  auto on = std::make_shared<bool>(false);
  CLI::Option* on_opt = app.add_flag("--search", *on, "search the highest lossless rate (NDR) instead of one run at --target-mbps");
  flags.add_custom([on_opt, on](json& cell) {
    if (on_opt->count() && *on && !cell.contains("search")) cell["search"] = json::object();
  });
  flags.add_in<int64_t>("search", "--search-lower-mbps", "lower_mbps", "search: lowest rate tried (default 1)");
  flags.add_in<int64_t>("search", "--search-upper-mbps", "upper_mbps", "search: highest rate; 0 = an unpaced first trial's");
  flags.add_in<double>("search", "--search-trial-seconds", "trial_seconds", "search: window of each trial (default 2)");
  flags.add_in<int64_t>("search", "--search-resolution-mbps", "resolution_mbps", "search: stop when the bracket is this narrow");
  flags.add_in<int64_t>("search", "--search-resolution-percent", "resolution_percent", "search: the same, in % of the upper rate (default 1)");
  flags.add_in<int64_t>("search", "--search-pdr-ppm", "pdr_ppm", "search: also find the PDR, loss at most this many ppm");
  flags.add_in<int64_t>("search", "--search-settle-ms", "settle_ms", "search: pause between trials (default 500)");
  flags.add_in<std::string>("search", "--search-method", "method", "search: receive_rate (default) | binary");
}

}  // namespace

std::optional<json> parse_command_line(int argc, const char* const* argv, std::ostream& out) {
  CLI::App app{"spiral-dataplane: network and GPU benchmark engine (SpiralBench data plane); transports " +
                   kind_names("and"),
               "spiral-dataplane"};
  app.set_version_flag("--version", SPIRAL_VERSION);
  app.footer("Flags override the same keys of --cell FILE. See docs/dataplane.md.");

  std::string cell_file;
  app.add_option("--cell", cell_file, "JSON cell description (the operator's input)");
  bool check_args = false, describe = false;
  app.add_flag("--check-args", check_args,
               "read and check the cell as a run would, print it as JSON and exit: 0 accepted, 2 refused");
  app.add_flag("--describe-kinds", describe, "print each bench kind's backend, flags and spellings as JSON and exit");
  FlagTable flags(app);
  std::string role_positional;
  CLI::Option* role_pos = app.add_option("role", role_positional, "server | client | loopback | rank");
  flags.add_custom([role_pos, &role_positional](json& cell) {
    if (role_pos->count()) cell["role"] = role_positional;
  });
  flags.add<std::string>("--role", "role", "server (receiver), client (sender), loopback (both) or rank (a pod's ranks)");
  flags.add<std::string>("--transport", "transport", kind_names("|"));
  flags.add<int64_t>("--payload-bytes", "payload_bytes", "bytes per message: per send() on a stream, per datagram");
  flags.add<int64_t>("--pairs", "pairs", "client/server pairs, one thread each side");
  flags.add<int64_t>("--target-mbps", "target_mbps", "sender pacing, Mb/s of all pairs together; 0 = unpaced");
  flags.add<double>("--seconds", "seconds", "measured window");
  flags.add<double>("--warmup-seconds", "warmup_seconds", "excluded warm-up before the window");
  flags.add<int64_t>("--repeats", "repeats", "runs back to back in this process, one summary line each (1..4)");
  flags.add<std::string>("--server-address", "server_address", "where the client connects");
  flags.add<std::string>("--bind-address", "bind_address", "where the server listens");
  flags.add<std::string>("--rendezvous", "rendezvous",
                         "the operator's rendezvous host:port: rank 0 announces --announce-address there, the others wait there for it");
  flags.add<std::string>("--rendezvous-key", "rendezvous_key", "rank 0's pod UID, the rendezvous' key");
  flags.add<std::string>("--announce-address", "announce_address", "rank 0: its own address (the pod IP), announced once it listens");
  flags.add_strings("--server-addresses", "server_addresses",
                    "client: several links, pair i connects to list[i % n], e.g. 10.0.1.2,10.0.2.2");
  flags.add_strings("--netdevs", "netdevs", "this side's interface per link, for PHY counters (default: by address)");
  flags.add_switch("--environment", "environment", "capture the host environment into the record and summary");
  flags.add<std::string>("--environment-file", "environment_file",
                         "also write the capture here, gzip+base64 in <= 4096 bytes (the relay's message)");
  flags.add<int64_t>("--base-port", "base_port", "pair i uses base_port+i");
  flags.add<int64_t>("--control-port", "control_port", "control connection (default base_port-1)");
  flags.add<int64_t>("--connect-timeout-ms", "connect_timeout_ms", "client: wait this long for the server");
  flags.add<int64_t>("--accept-timeout-ms", "accept_timeout_ms", "server: wait this long for the client");
  flags.add<int64_t>("--grace-ms", "grace_ms", "server: keep receiving this long after the sender stops");
  auto master = std::make_shared<int64_t>(-1);
  CLI::Option* master_opt = app.add_option("--master-core", *master, "core of the main thread (-1 unpinned)");
  flags.add_custom([master_opt, master](json& cell) {
    if (master_opt->count()) cell["cores"]["master"] = *master;
  });
  flags.add_list("--tx-cores", "tx", "sender cores, pair i on list[i % n], e.g. 2,3");
  flags.add_list("--rx-cores", "rx", "receiver cores, pair i on list[i % n]");
  flags.add<int64_t>("--batch", "batch", "datagrams per sendmmsg/recvmmsg, packets per burst");
  add_kind_flags(flags);
  auto workload = std::make_shared<std::string>();
  CLI::Option* workload_opt =
      app.add_option("--workload", *workload, "GPU work in the receive path: none | fft | gemm | gemm_fp16");
  flags.add_custom([workload_opt, workload](json& cell) {
    if (workload_opt->count()) cell["workload"] = {{"kind", *workload}};
  });
  flags.add<int64_t>("--gemm-n", "gemm_n", "gemm, gemm_fp16: matrix dimension n (default 1024)");
  flags.add<int64_t>("--fft-length", "fft_length", "fft: points per transform, a power of two (default 1024)");
  flags.add<int64_t>("--workload-batch-bytes", "workload_batch_bytes", "bytes per GPU window; 0 = 8 MiB");
  flags.add<int64_t>("--sync-interval", "sync_interval", "collect completed GPU windows every N calls (default 2)");
  flags.add<int64_t>("--max-in-flight", "max_in_flight", "GPU windows in flight before the receiver waits (default 2)");
  flags.add<std::string>("--ready-file", "ready_file", "server: written once listening");
  flags.add<std::string>("--summary-file", "summary_file", "compact JSON summary (<= 4096 bytes)");
  flags.add_switch("--csv", "csv", "also print DAQIRI's CSV header and row");
  flags.add<std::string>("--csv-file", "csv_file", "append the CSV row to this file");
  add_search_flags(app, flags);
  auto labels = std::make_shared<std::vector<std::string>>();
  CLI::Option* label_opt = app.add_option("--label", *labels, "KEY=VALUE echoed into the record (repeatable)");
  flags.add_custom([label_opt, labels](json& cell) {
    if (!label_opt->count()) return;
    for (const auto& kv : *labels) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw BadInput("--label: expected KEY=VALUE, got \"" + kv + "\"");
      cell["labels"][kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::CallForVersion&) {
    out << SPIRAL_VERSION << "\n";
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw BadInput(e.what());
  }

  if (describe) {
    out << describe_kinds().dump(2) << "\n";
    return std::nullopt;
  }
  json cell = cell_file.empty() ? json::object() : read_cell_file(cell_file);
  flags.apply(cell);
  if (check_args) {  // the operator's tests: every argument list it renders parses here
    out << cell_to_json(parse_cell(cell)).dump() << "\n";
    return std::nullopt;
  }
  return cell;
}

}  // namespace spiral
