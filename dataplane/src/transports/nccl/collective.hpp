#pragma once
// The eight NCCL operations SpiralBench measures, one small descriptor each, as nccl-tests
// 2.19.6 defines them (doc/PERFORMANCE.md): how many elements each rank sends and receives for a
// requested size, where in-place data sits, and the algbw/busbw formulas. The engine and the
// report consult this table and never switch on an operation's name.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "transports/nccl/counts.hpp"
#include "transports/nccl/identifiers.hpp"

namespace spiral::nccl {

struct CollectiveInfo {
  Collective id;
  std::string_view name;        // the API and CSV spelling: "all_gather"
  std::string_view nccl_tests;  // the matching nccl-tests binary: "all_gather_perf"
  bool reduces;                 // takes a reduction operator (sum, prod, ...)
  bool rooted;                  // has a root rank (broadcast, reduce)
  // nccl-tests' byte count for algbw is param * element size * (nranks when this is true)
  bool bytes_scale_with_ranks;
  // NCCL defines an in-place form: sendbuff == recvbuff (broadcast, reduce, all_reduce) or the
  // rank's slice of recvbuff (all_gather, reduce_scatter), per NCCL's user guide, "In-place
  // Operations" (docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/inplace.html).
  // Send/receive and all-to-all have none: the receive overwrites the data still being sent, so
  // the result depends on timing; nccl-tests 2.19.6 times them and skips their check (N/A).
  bool defines_in_place;
  Counts (*counts)(size_t elements, size_t element_bytes, int nranks);
  double (*bus_factor)(int nranks);  // busbw = algbw * factor
  // alltoallv: algbw from the largest rank's bytes (the reported size), as nccl-tests 2.19
  bool bandwidth_of_size = false;
};

std::span<const CollectiveInfo> collectives();
const CollectiveInfo& info(Collective c);
// Throws BadInput naming the accepted spellings.
const CollectiveInfo& collective_named(std::string_view name);

// Whether a row (one size, one placement) is checked: check iterations asked, and the placement
// one whose result NCCL defines. A row that is not checked is still timed.
bool row_checked(const CollectiveInfo& c, bool in_place, int check_iterations);

// nccl-tests' figures for one measured size: seconds per operation -> GB/s (1e9 bytes/s).
struct Bandwidth {
  double algbw_gbps = 0, busbw_gbps = 0;
};
Bandwidth bandwidth(const CollectiveInfo& c, size_t param_count, size_t element_bytes, double seconds, int nranks,
                    uint64_t size_bytes = 0);

struct SweepSpec;
// The counts of `spec`'s operation: the table's, or alltoallv's from its traffic pattern.
Counts counts_for(const SweepSpec& spec, size_t elements, size_t element_bytes, int nranks);

// The size nccl-tests prints in its "size" column: max(send, recv) bytes.
uint64_t reported_bytes(const Counts& counts, size_t element_bytes);

}  // namespace spiral::nccl
