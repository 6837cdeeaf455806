#pragma once
// Retries as the RDMA device counts them (sysfs hw_counters): RC retransmits inside the NIC,
// invisible to the verbs. Device-wide, so they include any other user of the device. Names
// differ by driver; whichever of the known ones exist are summed:
//   requester (retransmitted): rxe completer_retry_err, rcvd_rnr_err; mlx5 local_ack_timeout_err,
//     packet_seq_err, implied_nak_seq_err, rnr_nak_retry_err
//   responder (saw a retransmission): rxe and mlx5 duplicate_request; rxe out_of_seq_request,
//     mlx5 out_of_sequence
#include <cstdint>
#include <string>
#include <vector>

namespace spiral::roce {

class RetryCounters {
 public:
  enum class Side { requester, responder };
  RetryCounters() = default;
  // `root` is /sys/class/infiniband outside the tests.
  RetryCounters(const std::string& root, const std::string& device, int port, Side side);

  bool available() const { return !files_.empty(); }
  uint64_t read() const;  // the sum now; 0 without counters
  std::string names() const;

 private:
  std::vector<std::string> files_;
};

}  // namespace spiral::roce
