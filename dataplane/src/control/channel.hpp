#pragma once
// The control connection: newline-delimited JSON messages over one TCP connection
// (protocol in docs/dataplane.md). Throws RunFailure when the peer closes or goes silent.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sys/clock.hpp"
#include "sys/fd.hpp"

namespace spiral {

class ControlChannel {
 public:
  explicit ControlChannel(Fd fd);

  void send(const nlohmann::json& message);
  // The next message, or nullopt if none arrived within `wait`.
  std::optional<nlohmann::json> poll(Millis wait);
  // The next message, which must be of `type`; an "error" message or silence past `wait` throws.
  nlohmann::json expect(const std::string& type, Millis wait);
  // Throws if the peer has closed the connection (checked without consuming messages).
  void require_open();

 private:
  std::optional<nlohmann::json> take_line();

  Fd fd_;
  std::string inbox_;
};

}  // namespace spiral
