#include "control/channel.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "sys/errors.hpp"

namespace spiral {

namespace {
constexpr size_t kMaxMessageBytes = 1 << 20;
}

ControlChannel::ControlChannel(Fd fd) : fd_(std::move(fd)) {}

void ControlChannel::send(const nlohmann::json& message) {
  std::string line = message.dump() + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::send(fd_.get(), line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw RunFailure(errno_message("control connection lost", errno));
    }
    done += static_cast<size_t>(n);
  }
}

std::optional<nlohmann::json> ControlChannel::take_line() {
  auto eol = inbox_.find('\n');
  if (eol == std::string::npos) return std::nullopt;
  std::string line = inbox_.substr(0, eol);
  inbox_.erase(0, eol + 1);
  auto message = nlohmann::json::parse(line, nullptr, false);
  if (message.is_discarded() || !message.is_object() || !message.contains("type") || !message["type"].is_string())
    throw RunFailure("control connection: malformed message");
  return message;
}

std::optional<nlohmann::json> ControlChannel::poll(Millis wait) {
  const auto deadline = Clock::now() + wait;
  for (;;) {
    if (auto message = take_line()) return message;
    const int64_t left = millis_between(Clock::now(), deadline);
    pollfd p{fd_.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready < 0 && errno != EINTR) throw RunFailure(errno_message("control connection: poll", errno));
    if (ready <= 0) {
      if (left <= 0) return std::nullopt;
      continue;
    }
    char chunk[4096];
    ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, 0);
    if (n == 0) throw RunFailure("control connection closed by the peer");
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw RunFailure(errno_message("control connection lost", errno));
    }
    inbox_.append(chunk, static_cast<size_t>(n));
    if (inbox_.size() > kMaxMessageBytes) throw RunFailure("control connection: message too long");
  }
}

nlohmann::json ControlChannel::expect(const std::string& type, Millis wait) {
  auto message = poll(wait);
  if (!message) throw RunFailure("control connection: no \"" + type + "\" message within " +
                                 std::to_string(wait.count()) + " ms");
  const std::string got = (*message)["type"].get<std::string>();
  if (got == "error") throw RunFailure("peer reported: " + message->value("reason", std::string("an error")));
  if (got == "refused") throw BadInput("the client refused the cell: " + message->value("reason", std::string()));
  if (got != type) throw RunFailure("control connection: expected \"" + type + "\", got \"" + got + "\"");
  return *message;
}

void ControlChannel::require_open() {
  pollfd p{fd_.get(), POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return;
  char byte;
  ssize_t n = ::recv(fd_.get(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0 || (p.revents & (POLLHUP | POLLERR))) throw RunFailure("control connection closed by the peer");
}

}  // namespace spiral
