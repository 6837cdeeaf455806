#include "transports/nccl/bootstrap.hpp"

#include <algorithm>
#include <optional>

#include "sys/errors.hpp"
#include "control/messages.hpp"
#include "sys/socket.hpp"

namespace spiral::nccl {

namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

// Why a hello cannot join this cell, or empty.
std::string hello_problem(const nlohmann::json& hello, const BootstrapSpec& spec, const std::vector<bool>& arrived) {
  if (hello.value("type", "") != "nccl_hello") return "expected nccl_hello, got \"" + hello.value("type", "") + "\"";
  const std::string cell = hello.value("cell", "");
  const int rank = hello.value("rank", -1), nranks = hello.value("nranks", -1);
  if (cell != spec.cell) return "a rank of cell \"" + cell + "\" connected to cell \"" + spec.cell + "\"";
  if (nranks != spec.nranks)
    return "rank " + std::to_string(rank) + " expects " + std::to_string(nranks) + " ranks, rank 0 expects " +
           std::to_string(spec.nranks);
  if (rank < 1 || rank >= spec.nranks)
    return "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(spec.nranks - 1);
  if (arrived[rank]) return "rank " + std::to_string(rank) + " connected twice";
  return "";
}

}  // namespace

std::string to_hex(const UniqueId& id) {
  std::string out;
  out.reserve(2 * id.size());
  for (uint8_t b : id) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

UniqueId unique_id_from_hex(const std::string& hex) {
  if (hex.size() != 2 * kUniqueIdBytes)
    throw RunFailure("NCCL bootstrap: unique id of " + std::to_string(hex.size()) + " hex digits, expected " +
                     std::to_string(2 * kUniqueIdBytes));
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw RunFailure("NCCL bootstrap: unique id is not lower-case hex");
  };
  UniqueId id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]));
  return id;
}

RootSession RootSession::serve(int listen_fd, const BootstrapSpec& spec, const UniqueId& id) {
  const auto deadline = Clock::now() + spec.timeout;
  std::vector<std::optional<ControlChannel>> ranks(spec.nranks);
  std::vector<bool> arrived(spec.nranks, false);
  arrived[0] = true;
  std::vector<ControlChannel> pending;
  auto fail = [&](const std::string& reason) {
    for (auto& r : ranks)
      if (r) try { r->send(error_message(reason)); } catch (const RunFailure&) {}
    for (auto& p : pending)
      try { p.send(error_message(reason)); } catch (const RunFailure&) {}
    throw RunFailure("NCCL bootstrap: " + reason);
  };
  int missing = spec.nranks - 1;
  while (missing > 0) {
    if (Clock::now() >= deadline) {
      std::vector<int> absent, present{0};
      for (int r = 1; r < spec.nranks; ++r) (arrived[r] ? present : absent).push_back(r);
      fail("rank" + std::string(absent.size() > 1 ? "s " : " ") + rank_list(absent) + " of " +
           std::to_string(spec.nranks) + " did not arrive within " + std::to_string(spec.timeout.count()) +
           " ms (arrived: " + rank_list(present) + ")");
    }
    Fd fd = accept_until(listen_fd, std::min(deadline, Clock::now() + Millis(20)), [] { return false; });
    if (fd) pending.emplace_back(std::move(fd));
    for (size_t i = 0; i < pending.size();) {
      std::optional<nlohmann::json> hello;
      try {
        hello = pending[i].poll(Millis(0));
      } catch (const RunFailure&) {  // connected and went away before saying hello: forget it
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      if (!hello) {
        ++i;
        continue;
      }
      if (auto problem = hello_problem(*hello, spec, arrived); !problem.empty()) fail(problem);
      const int rank = (*hello)["rank"].get<int>();
      arrived[rank] = true;
      ranks[rank].emplace(std::move(pending[i]));
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      --missing;
    }
  }
  std::vector<ControlChannel> peers;
  const nlohmann::json message{{"type", "nccl_id"}, {"id", to_hex(id)}};
  for (int r = 1; r < spec.nranks; ++r) {
    ranks[r]->send(message);
    peers.push_back(std::move(*ranks[r]));
  }
  return RootSession(std::move(peers));
}

std::vector<nlohmann::json> RootSession::gather_reports(Millis wait) {
  const auto deadline = Clock::now() + wait;
  std::vector<nlohmann::json> reports(peers_.size());
  std::vector<int> silent;
  for (size_t i = 0; i < peers_.size(); ++i) {
    const int rank = static_cast<int>(i) + 1;
    try {
      auto message = peers_[i].expect("nccl_report", Millis(std::max<int64_t>(millis_between(Clock::now(), deadline), 0)));
      reports[i] = message.value("report", nlohmann::json::object());
    } catch (const RunFailure& e) {
      silent.push_back(rank);
      reports[i] = {{"error", e.what()}};
    }
  }
  if (!silent.empty())
    throw RunFailure("NCCL: rank" + std::string(silent.size() > 1 ? "s " : " ") + rank_list(silent) +
                     " sent no report within " + std::to_string(wait.count()) + " ms");
  return reports;
}

void RootSession::fail_all(const std::string& reason) {
  for (auto& p : peers_)
    try { p.send(error_message(reason)); } catch (const RunFailure&) {}
}

RankSession RankSession::join(const BootstrapSpec& spec) {
  const auto deadline = Clock::now() + spec.timeout;
  const std::string where = spec.root_host + ":" + std::to_string(spec.root_port);
  Fd fd;
  try {
    fd = tcp_connect_until(resolve_ipv4_until(spec.root_host, spec.root_port, deadline), deadline);
  } catch (const BadInput& e) {
    throw RunFailure("NCCL bootstrap: rank " + std::to_string(spec.rank) + " could not reach rank 0 at " + where +
                     " within " + std::to_string(spec.timeout.count()) + " ms (" + e.what() + ")");
  }
  ControlChannel channel(std::move(fd));
  channel.send({{"type", "nccl_hello"}, {"cell", spec.cell}, {"rank", spec.rank}, {"nranks", spec.nranks}});
  const auto left = Millis(std::max<int64_t>(millis_between(Clock::now(), deadline), 0));
  nlohmann::json message;
  try {
    message = channel.expect("nccl_id", left);
  } catch (const RunFailure& e) {
    throw RunFailure("NCCL bootstrap: rank " + std::to_string(spec.rank) + " got no unique id from rank 0 at " +
                     where + ": " + e.what());
  }
  return RankSession(std::move(channel), spec.rank, unique_id_from_hex(message.value("id", "")));
}

void RankSession::send_report(const nlohmann::json& report) {
  channel_.send({{"type", "nccl_report"}, {"rank", rank_}, {"report", report}});
}

}  // namespace spiral::nccl
