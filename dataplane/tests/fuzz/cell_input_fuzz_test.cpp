// A random-input harness (GoogleTest; clang's libFuzzer is not on the build machines) for the
// two ways a cell reaches the data plane: the cell JSON (parse_cell) and the command line
// (parse_command_line, then parse_cell). Whatever the input, the only failure allowed is
// BadInput (one line naming the key, exit 2); anything accepted must survive its own record
// (cell_to_json) being parsed again. Deterministic: SPIRAL_FUZZ_SEED and
// SPIRAL_FUZZ_ITERATIONS choose the run (default 20000 inputs per test, seed 1), so a failure
// prints the input and reproduces. Long run: SPIRAL_FUZZ_ITERATIONS=2000000 ctest -L fuzz.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "sys/errors.hpp"

namespace spiral {
namespace {

using nlohmann::json;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Cells that parse_cell accepts (where the build has the transport), to mutate from.
std::vector<json> seeds() {
  return {
      json::parse(R"({"transport":"tcp","role":"server","payload_bytes":8000,"pairs":4,"seconds":1})"),
      json::parse(R"({"transport":"udp","role":"client","payload_bytes":1000,"pairs":2,"target_mbps":100,
                      "batch":64,"cores":{"tx":[0,1]},"labels":{"cell":"3"}})"),
      json::parse(R"({"transport":"udp","role":"server","payload_bytes":8000,"workload":"fft","fft_length":1024})"),
      json::parse(R"({"transport":"raw","role":"loopback","tx_port":"net_ring0","rx_port":"net_ring0",
                      "payload_bytes":1000,"batch":32,"no_huge":true})"),
      json::parse(R"({"transport":"roce","role":"client","verb":"write","mode":"latency","queue_pairs":1,
                      "payload_bytes":4096})"),
  };
}

const std::vector<std::string> kKeys = {
    "transport", "role", "payload_bytes", "pairs", "target_mbps", "seconds", "warmup_seconds", "server_address",
    "bind_address", "base_port", "control_port", "connect_timeout_ms", "accept_timeout_ms", "grace_ms", "cores",
    "tcp_nodelay", "udp_gso", "udp_gro", "socket_buffer_bytes", "batch", "workload", "gemm_n", "fft_length",
    "workload_batch_bytes", "sync_interval", "max_in_flight", "labels", "tx_port", "rx_port", "tx_queues",
    "rx_queues", "memory", "ring_descriptors", "pool_buffers", "no_huge", "verb", "mode", "queue_pairs",
    "tx_depth", "rx_depth", "no_such_key"};

class Random {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}
  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

  // A random JSON value; nested arrays and objects at most `depth` deep.
  json value(int depth = 3) {
    static const std::vector<int64_t> ints = {0, 1, -1, 2, 63, 64, 1024, 8972, 8973, 65535, 65536, 1 << 24,
                                              int64_t{1} << 31, (int64_t{1} << 32) + 7, std::numeric_limits<int64_t>::max(),
                                              std::numeric_limits<int64_t>::min()};
    static const std::vector<std::string> texts = {"", "tcp", "udp", "raw", "roce", "server", "client", "loopback",
                                                   "host", "device", "host_pinned", "fft", "gemm", "write", "latency",
                                                   "net_ring0", "env:NOPE", "0000:01:00.0", "127.0.0.1", "::1",
                                                   std::string(600, 'x'), "1e999"};
    switch (below(depth > 0 ? 9 : 6)) {
      case 0: return pick(ints) + static_cast<int64_t>(below(3)) - 1;
      case 1: return static_cast<uint64_t>(std::numeric_limits<uint64_t>::max() - below(2));
      case 2: return std::ldexp(1.0, static_cast<int>(below(1100))) * (below(2) ? 1 : -1) + 0.5;
      case 3: return pick(texts);
      case 4: return below(2) == 1;
      case 5: return nullptr;
      case 6: {
        json a = json::array();
        for (uint64_t i = below(70); i > 0; --i) a.push_back(below(4) ? json(pick(ints)) : value(depth - 1));
        return a;
      }
      case 7: return json{{"tx", json::array({pick(ints)})}, {"rx", value(depth - 1)}, {"master", value(depth - 1)}};
      default: return json{{pick(texts), value(depth - 1)}};
    }
  }

  // A seed with up to four keys set to random values or removed.
  json mutate(json j) {
    for (uint64_t n = 1 + below(4); n > 0; --n) {
      const std::string& key = pick(kKeys);
      if (below(5) == 0) j.erase(key);
      else j[key] = value();
    }
    return j;
  }

  // The seed's text with a few bytes changed, inserted or removed.
  std::string scramble(std::string s) {
    for (uint64_t n = 1 + below(6); n > 0 && !s.empty(); --n) {
      const size_t at = below(s.size());
      switch (below(3)) {
        case 0: s[at] = static_cast<char>(below(256)); break;
        case 1: s.insert(at, 1, "{}[]\",:0123456789-e.tnf\\"[below(25)]); break;
        default: s.erase(at, 1);
      }
    }
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

// For messages: the input as JSON text, invalid UTF-8 (possible from a command line) replaced.
std::string show(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Parses j; the only failure allowed is BadInput. An accepted cell must parse again from its
// own record, to the same record.
struct Tally {
  uint64_t accepted = 0, refused = 0;
};

void check_cell(const json& j, Tally& tally) {
  Cell c;
  try {
    c = parse_cell(j);
    ++tally.accepted;
  } catch (const BadInput&) {
    ++tally.refused;
    return;
  } catch (const std::exception& e) {
    FAIL() << "parse_cell threw " << typeid(e).name() << " (" << e.what() << ") instead of BadInput for " << show(j);
  }
  json record;
  try {
    record = cell_to_json(c);
    const json again = cell_to_json(parse_cell(record));
    EXPECT_EQ(again, record) << "the record of an accepted cell changes when parsed again: " << show(j);
  } catch (const std::exception& e) {
    FAIL() << "the record of an accepted cell does not parse again (" << e.what() << "): input " << show(j)
           << " record " << show(record);
  }
}

// A harness that never reaches an accepted (or a refused) cell tests nothing.
void expect_both(const Tally& t) {
  if (env_number("SPIRAL_FUZZ_ITERATIONS", 20000) < 1000) return;
  EXPECT_GT(t.accepted, 0u) << "no input was accepted";
  EXPECT_GT(t.refused, 0u) << "no input was refused";
  std::printf("accepted %llu, refused %llu\n", static_cast<unsigned long long>(t.accepted),
              static_cast<unsigned long long>(t.refused));
}

TEST(CellInputFuzz, MutatedCellObjectsFailOnlyWithBadInput) {
  Random r(env_number("SPIRAL_FUZZ_SEED", 1));
  const auto base = seeds();
  Tally tally;
  for (uint64_t i = env_number("SPIRAL_FUZZ_ITERATIONS", 20000); i > 0 && !HasFatalFailure(); --i) {
    check_cell(r.mutate(r.pick(base)), tally);
  }
  expect_both(tally);
}

TEST(CellInputFuzz, ScrambledCellTextFailsOnlyWithBadInput) {
  Random r(env_number("SPIRAL_FUZZ_SEED", 1) + 1);
  const auto base = seeds();
  Tally tally;
  for (uint64_t i = env_number("SPIRAL_FUZZ_ITERATIONS", 20000); i > 0 && !HasFatalFailure(); --i) {
    const std::string text = r.scramble(r.pick(base).dump());
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) check_cell(j, tally);
  }
  expect_both(tally);
}

TEST(CellInputFuzz, RandomCommandLinesFailOnlyWithBadInput) {
  static const std::vector<std::string> flags = {
      "--role", "--transport", "--payload-bytes", "--pairs", "--target-mbps", "--seconds", "--warmup-seconds",
      "--server-address", "--bind-address", "--base-port", "--control-port", "--connect-timeout-ms", "--grace-ms",
      "--tx-cores", "--rx-cores", "--socket-buffer-bytes", "--batch", "--gemm-n", "--fft-length",
      "--workload-batch-bytes", "--sync-interval", "--max-in-flight", "--csv", "--label", "--tx-port", "--rx-port",
      "--memory", "--ring-descriptors", "--verb", "--mode", "--queue-pairs", "--workload", "--no-such-flag", "-x",
      "--", "--payload-bytes=9000"};
  static const std::vector<std::string> values = {
      "tcp", "udp", "raw", "roce", "server", "client", "loopback", "0", "1", "-1", "8000", "8973", "4294967296",
      "9223372036854775808", "-9223372036854775809", "1e99", "0x10", "", "abc", "1,2,,3", "0,-1", "a=b", "=",
      "net_ring0", "host", "device", "write", "latency", "fft", "\xff\xfe"};
  Random r(env_number("SPIRAL_FUZZ_SEED", 1) + 2);
  Tally tally;
  for (uint64_t i = env_number("SPIRAL_FUZZ_ITERATIONS", 20000); i > 0 && !HasFatalFailure(); --i) {
    std::vector<std::string> args = {"spiral-dataplane"};
    if (r.below(2)) {  // half the lines start from a command the data plane accepts
      for (const char* a : {"--transport", "udp", "--role", "client", "--payload-bytes", "1000"}) args.push_back(a);
    }
    for (uint64_t n = r.below(6); n > 0; --n) args.push_back(r.below(3) ? r.pick(flags) : r.pick(values));
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, line;
    for (const auto& a : args) line << a << ' ';
    std::optional<json> j;
    try {
      j = parse_command_line(static_cast<int>(argv.size()), argv.data(), out);
    } catch (const BadInput&) {
      continue;
    } catch (const std::exception& e) {
      FAIL() << "parse_command_line threw " << typeid(e).name() << " (" << e.what() << ") for: " << line.str();
    }
    if (j) check_cell(*j, tally);
  }
  expect_both(tally);
}

}  // namespace
}  // namespace spiral
