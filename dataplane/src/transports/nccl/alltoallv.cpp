#include "transports/nccl/alltoallv.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sys/errors.hpp"

namespace spiral::nccl {

namespace {
constexpr uint64_t kAlign = ~uint64_t{15};
}

uint64_t peer_bytes(const AllToAllvPattern& p, int from, int to, int nranks, uint64_t total_bytes) {
  if (p.from_matrix()) return p.matrix[static_cast<size_t>(from) * p.dim + to];
  if (nranks == 1) return total_bytes & kAlign;
  const int distance = (to - from + nranks) % nranks;
  const double sum_distances = static_cast<double>(nranks) * (nranks - 1) / 2;
  const double uniform = static_cast<double>(total_bytes) / nranks;
  const double weighted = distance * static_cast<double>(total_bytes) / sum_distances;
  return static_cast<uint64_t>((1.0 - p.spread) * uniform + p.spread * weighted) & kAlign;
}

Counts alltoallv_counts(const AllToAllvPattern& p, size_t elements, size_t element_bytes, int nranks) {
  Counts c;
  c.param = p.from_matrix() ? 0 : (elements / nranks) & ~(16 / element_bytes - 1);
  const uint64_t total = c.param * nranks * element_bytes;
  // generated patterns are the same for every rank, shifted: rank 0's total is everyone's
  const int senders = p.from_matrix() ? nranks : 1;
  for (int i = 0; i < senders; ++i) {
    size_t sent = 0, received = 0;
    for (int j = 0; j < nranks; ++j) {
      sent += peer_bytes(p, i, j, nranks, total) / element_bytes;
      received += peer_bytes(p, j, i, nranks, total) / element_bytes;
    }
    c.send = std::max(c.send, sent);
    c.recv = std::max(c.recv, p.from_matrix() ? received : sent);
  }
  return c;
}

std::vector<PeerSegment> alltoallv_segments(const AllToAllvPattern& p, int rank, int nranks, size_t param,
                                            size_t element_bytes) {
  const uint64_t total = param * nranks * element_bytes;
  std::vector<PeerSegment> out(static_cast<size_t>(nranks));
  uint64_t send_at = 0, recv_at = 0;
  for (int peer = 0; peer < nranks; ++peer) {
    PeerSegment& s = out[static_cast<size_t>(peer)];
    s.peer = peer;
    s.send_at = send_at;
    s.send_count = peer_bytes(p, rank, peer, nranks, total) / element_bytes;
    s.recv_at = recv_at;
    s.recv_count = peer_bytes(p, peer, rank, nranks, total) / element_bytes;
    for (int k = 0; k < rank; ++k) s.peer_send_at += peer_bytes(p, peer, k, nranks, total) / element_bytes;
    send_at += s.send_count;
    recv_at += s.recv_count;
  }
  return out;
}

AllToAllvPattern parse_traffic_matrix(const std::string& text) {
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), ';', ' ');
  std::replace(flat.begin(), flat.end(), ',', ' ');
  std::istringstream in(flat);
  std::vector<uint64_t> values;
  std::string word;
  while (in >> word) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || !(v >= 0) || v > 1e15)
      throw BadInput("traffic matrix: \"" + word + "\" is not a byte count");
    values.push_back(static_cast<uint64_t>(v) & kAlign);
  }
  const auto dim = static_cast<size_t>(std::llround(std::sqrt(static_cast<double>(values.size()))));
  if (values.empty() || dim * dim != values.size())
    throw BadInput("traffic matrix: " + std::to_string(values.size()) + " values do not make a square matrix");
  return {1.0, static_cast<int>(dim), std::move(values)};
}

std::string alltoallv_refusal(const AllToAllvPattern& p, int nranks, uint64_t min_bytes, uint64_t max_bytes) {
  if (p.spread < 0 || p.spread > 1) return "spread must be between 0 and 1";
  if (!p.from_matrix()) return "";
  if (p.dim < nranks)
    return "the traffic matrix is " + std::to_string(p.dim) + "x" + std::to_string(p.dim) + " but the cell has " +
           std::to_string(nranks) + " ranks: give a row and a column for every rank";
  if (min_bytes != max_bytes)
    return "a traffic matrix fixes every size: set min_bytes equal to max_bytes (nccl-tests -b = -e)";
  const Counts c = alltoallv_counts(p, 0, 1, nranks);
  if (std::max(c.send, c.recv) > max_bytes)
    return "max_bytes " + std::to_string(max_bytes) + " is below the largest rank's " +
           std::to_string(std::max(c.send, c.recv)) + " bytes of the traffic matrix";
  return "";
}

}  // namespace spiral::nccl
