#include "transports/nccl/collective.hpp"

#include <algorithm>
#include <array>

#include "sys/errors.hpp"
#include "transports/nccl/alltoallv.hpp"

namespace spiral::nccl {

namespace {

// Per-rank slices are rounded down to a multiple of 16 bytes, as nccl-tests does, so every
// rank's slice stays aligned.
size_t aligned_slice(size_t elements, size_t element_bytes, int nranks) {
  const size_t per_rank = elements / static_cast<size_t>(nranks);
  const size_t mask = 16 / element_bytes - 1;
  return per_rank & ~mask;
}

Counts same_in_and_out(size_t elements, size_t, int) { return {elements, elements, elements, 0, 0}; }

Counts gather_counts(size_t elements, size_t element_bytes, int nranks) {
  const size_t slice = aligned_slice(elements, element_bytes, nranks);
  return {slice, slice * nranks, slice, slice, 0};
}

Counts scatter_counts(size_t elements, size_t element_bytes, int nranks) {
  const size_t slice = aligned_slice(elements, element_bytes, nranks);
  return {slice * nranks, slice, slice, 0, slice};
}

Counts all_to_all_counts(size_t elements, size_t element_bytes, int nranks) {
  const size_t slice = aligned_slice(elements, element_bytes, nranks);
  return {slice * nranks, slice * nranks, slice, 0, 0};
}

// alltoallv's table entry: nccl-tests' default pattern (spread 1); counts_for() uses the cell's
Counts default_alltoallv_counts(size_t elements, size_t element_bytes, int nranks) {
  return alltoallv_counts(AllToAllvPattern{}, elements, element_bytes, nranks);
}

double one(int) { return 1.0; }
double n_minus_one_over_n(int n) { return static_cast<double>(n - 1) / n; }
double two_n_minus_one_over_n(int n) { return 2.0 * (n - 1) / n; }

constexpr std::array kTable{
    CollectiveInfo{Collective::send_recv, "sendrecv", "sendrecv_perf", false, false, false, false, same_in_and_out, one},
    CollectiveInfo{Collective::all_gather, "all_gather", "all_gather_perf", false, false, true, true, gather_counts,
                   n_minus_one_over_n},
    CollectiveInfo{Collective::all_reduce, "all_reduce", "all_reduce_perf", true, false, false, true, same_in_and_out,
                   two_n_minus_one_over_n},
    CollectiveInfo{Collective::broadcast, "broadcast", "broadcast_perf", false, true, false, true, same_in_and_out, one},
    CollectiveInfo{Collective::reduce, "reduce", "reduce_perf", true, true, false, true, same_in_and_out, one},
    CollectiveInfo{Collective::reduce_scatter, "reduce_scatter", "reduce_scatter_perf", true, false, true, true,
                   scatter_counts, n_minus_one_over_n},
    CollectiveInfo{Collective::all_to_all, "alltoall", "alltoall_perf", false, false, true, false, all_to_all_counts,
                   n_minus_one_over_n},
    CollectiveInfo{Collective::all_to_all_v, "alltoallv", "alltoallv_perf", false, false, false, false,
                   default_alltoallv_counts, n_minus_one_over_n, true},
};

}  // namespace

std::span<const CollectiveInfo> collectives() { return kTable; }

const CollectiveInfo& info(Collective c) {
  for (const auto& entry : kTable)
    if (entry.id == c) return entry;
  throw RunFailure("unknown collective");  // unreachable: every enumerator has a row
}

const CollectiveInfo& collective_named(std::string_view name) {
  std::string known;
  for (const auto& entry : kTable) {
    if (entry.name == name) return entry;
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  }
  throw BadInput("unknown NCCL operation \"" + std::string(name) + "\" (known: " + known + ")");
}

bool row_checked(const CollectiveInfo& c, bool in_place, int check_iterations) {
  return check_iterations > 0 && (!in_place || c.defines_in_place);
}

Bandwidth bandwidth(const CollectiveInfo& c, size_t param_count, size_t element_bytes, double seconds, int nranks,
                    uint64_t size_bytes) {
  if (seconds <= 0) return {};
  double bytes = static_cast<double>(param_count) * static_cast<double>(element_bytes);
  if (c.bytes_scale_with_ranks) bytes *= nranks;
  if (c.bandwidth_of_size) bytes = static_cast<double>(size_bytes);
  const double algbw = bytes / 1.0e9 / seconds;
  return {algbw, algbw * c.bus_factor(nranks)};
}

Counts counts_for(const SweepSpec& spec, size_t elements, size_t element_bytes, int nranks) {
  if (spec.collective == Collective::all_to_all_v) return alltoallv_counts(spec.alltoallv, elements, element_bytes, nranks);
  return info(spec.collective).counts(elements, element_bytes, nranks);
}

uint64_t reported_bytes(const Counts& counts, size_t element_bytes) {
  return std::max(counts.send, counts.recv) * element_bytes;
}

}  // namespace spiral::nccl
