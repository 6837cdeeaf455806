#pragma once
// One rank of an NCCL cell on its GPU: builds the communicator from rank 0's unique id, runs the
// sweep as nccl-tests times it, checks results, and tells what NCCL chose. Built only with CUDA
// and NCCL (SPIRAL_HAVE_NCCL); the types it takes and returns are plain (sweep_spec.hpp).
#include <string>
#include <vector>

#include "transports/nccl/bootstrap.hpp"
#include "transports/nccl/sweep_spec.hpp"

namespace spiral::nccl {

// ncclGetUniqueId, on rank 0 only. Call prepare_environment() before (NCCL reads it once).
UniqueId new_unique_id();
// The NCCL library this process loaded, "2.28.9" (ncclGetVersion).
std::string library_version();
int library_version_code();  // the same as NCCL_VERSION(X, Y, Z): 22809

// Throws BadInput when the loaded NCCL lacks what `spec` asks for (features.hpp): every rank
// calls it before meeting the others, so such a cell fails at once, with the reason.
void preflight(const SweepSpec& spec);

// The PCI bus id of CUDA device `device` in this process ("0000:1B:00.0").
std::string pci_bus_id(int device);
// Its name, as nccl-tests prints it ("NVIDIA H200").
std::string device_name(int device);

// Timing, as nccl-tests 2.19.6 does it for each size and placement: one untimed operation, then
// `iterations` operations back to back on one stream (buffer offsets rotating through the
// allocation so the L2 cache does not hold the data between operations), the host's clock from
// before the first launch to after the stream has finished, divided by `iterations` (time_us);
// CUDA events around the same operations give the GPU's own view (gpu_time_us). Then a second
// pass of `iterations` operations with an event between each gives every operation's own time
// (nccl-tests 2.19's -I) and its p50 and p99; the first iterations_kept() of those times stay in
// the row (SizeRow::iter_us) for nccl-tests' JSON. Before the sweep, `warmup_iterations` untimed
// operations at every power of two from min to max.
// Throws RunFailure on any CUDA or NCCL error (naming the call).
std::vector<SizeRow> run_sweep(const SweepSpec& spec, const RankPlace& place, const UniqueId& id);

}  // namespace spiral::nccl
