// The ranks run driver (BenchKind::run_mode ranks): this pod's ranks, one child process each
// (NCCL wants one process per GPU), each running the kind's run_rank. The children are forked
// before anything touches CUDA or NCCL in this process; each sends its outcome back as one JSON
// object over a pipe. The pod's result is the worst state of its ranks, with local 0's figures.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "output/ready.hpp"
#include "control/rendezvous.hpp"
#include "run/roles.hpp"
#include "sys/errors.hpp"
#include "sys/fd.hpp"

namespace spiral {

namespace {

void announce_ready(const Cell& cell) {
  announce_to_rendezvous(cell);
  if (cell.ready_file.empty()) return;
  write_ready_file(cell.ready_file,
                   nlohmann::json{{"event", "ready"}, {"transport", cell.kind->name}, {"pid", ::getpid()}}.dump());
}

// In the child: run one rank, write its outcome, never return.
[[noreturn]] void child(const Cell& cell, uint32_t local, int out) {
  nlohmann::json outcome;
  try {
    outcome = cell.kind->run_rank(cell, local, local == 0 ? announce_ready : nullptr);
  } catch (const BadInput& e) {
    outcome = {{"state", "Failed"}, {"reason", std::string("bad input: ") + e.what()}, {"bad_input", true}};
  } catch (const std::exception& e) {
    outcome = {{"state", "Failed"}, {"reason", e.what()}};
  }
  const std::string text = outcome.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(out, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<size_t>(n);
  }
  ::close(out);
  ::_exit(0);  // no atexit handlers or static destructors of the parent's state in the child
}

int severity(const std::string& state) { return state == "Failed" ? 2 : state == "Invalid" ? 1 : 0; }

}  // namespace

RunResult run_ranks(const Cell& cell) {
  if (!cell.kind->local_ranks || !cell.kind->run_rank)
    throw BadInput("transport " + cell.kind->name + " does not run as ranks");
  const uint32_t n = cell.kind->local_ranks(cell);
  struct Child {
    pid_t pid;
    Fd out;
    std::string text;
  };
  std::vector<Child> children;
  for (uint32_t local = 0; local < n; ++local) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw RunFailure(errno_message("ranks: pipe", errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw RunFailure(errno_message("ranks: fork", errno));
    if (pid == 0) {
      ::close(fds[0]);
      child(cell, local, fds[1]);
    }
    ::close(fds[1]);
    children.push_back({pid, Fd(fds[0]), ""});
  }
  // Read every child's outcome as it comes (a pipe holds 64 KiB: never wait on one child while
  // another blocks writing), then reap them.
  size_t open = children.size();
  while (open > 0) {
    std::vector<pollfd> polls;
    for (auto& c : children)
      if (c.out) polls.push_back({c.out.get(), POLLIN, 0});
    if (::poll(polls.data(), polls.size(), 1000) < 0 && errno != EINTR) throw RunFailure(errno_message("ranks: poll", errno));
    for (auto& c : children) {
      if (!c.out) continue;
      pollfd p{c.out.get(), POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) continue;
      char chunk[4096];
      const ssize_t got = ::read(c.out.get(), chunk, sizeof chunk);
      if (got > 0) {
        c.text.append(chunk, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        c.out.reset();
        --open;
      }
    }
  }
  RunResult r;
  r.state = RunState::valid;
  int worst = -1;
  bool bad_input = false;
  for (uint32_t local = 0; local < n; ++local) {
    Child& c = children[local];
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    nlohmann::json outcome = nlohmann::json::parse(c.text, nullptr, false);
    if (outcome.is_discarded() || !outcome.is_object()) {
      const std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                                  : "exited with " + std::to_string(WEXITSTATUS(status));
      outcome = {{"state", "Failed"}, {"reason", "local rank " + std::to_string(local) + " " + how + " without a report"}};
    }
    const std::string state = outcome.value("state", "Failed");
    if (severity(state) > worst) {
      worst = severity(state);
      r.reason = outcome.value("reason", "");
    }
    bad_input = bad_input || outcome.value("bad_input", false);
    if (local == 0 && outcome.contains("figures")) r.figures = outcome["figures"];
  }
  if (bad_input && worst == 2) throw BadInput(r.reason.substr(r.reason.find(": ") + 2));
  r.state = worst == 2 ? RunState::failed : worst == 1 ? RunState::invalid : RunState::valid;
  return r;
}

}  // namespace spiral
