#include "transports/roce/retry_counters.hpp"

#include <filesystem>
#include <fstream>

namespace spiral::roce {

namespace {
const char* const kRequester[] = {"completer_retry_err",   "rcvd_rnr_err",        "local_ack_timeout_err",
                                  "packet_seq_err",        "implied_nak_seq_err", "rnr_nak_retry_err"};
const char* const kResponder[] = {"duplicate_request", "out_of_seq_request", "out_of_sequence"};
}  // namespace

RetryCounters::RetryCounters(const std::string& root, const std::string& device, int port, Side side) {
  namespace fs = std::filesystem;
  const fs::path dirs[] = {fs::path(root) / device / "ports" / std::to_string(port) / "hw_counters",
                           fs::path(root) / device / "hw_counters"};
  auto add = [&](const char* name) {
    for (const auto& dir : dirs) {
      std::error_code ec;
      if (fs::is_regular_file(dir / name, ec)) {
        files_.push_back((dir / name).string());
        return;  // the port's counter wins over a device-wide one of the same name
      }
    }
  };
  if (side == Side::requester)
    for (const char* n : kRequester) add(n);
  else
    for (const char* n : kResponder) add(n);
}

uint64_t RetryCounters::read() const {
  uint64_t sum = 0;
  for (const auto& f : files_) {
    std::ifstream in(f);
    uint64_t v = 0;
    if (in >> v) sum += v;
  }
  return sum;
}

std::string RetryCounters::names() const {
  std::string s;
  for (const auto& f : files_) {
    if (!s.empty()) s += '+';
    s += std::filesystem::path(f).filename().string();
  }
  return s.empty() ? "none" : s;
}

}  // namespace spiral::roce
