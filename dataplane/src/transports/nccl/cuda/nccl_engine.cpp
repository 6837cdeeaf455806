#include "transports/nccl/nccl_engine.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "sys/errors.hpp"
#include "gpu/cuda/check.hpp"
#include "transports/nccl/alltoallv.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/cuda/buffers_check.hpp"
#include "transports/nccl/cuda/nccl_handles.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/features.hpp"
#include "transports/nccl/sweep_rows.hpp"

namespace spiral::nccl {

static_assert(NCCL_UNIQUE_ID_BYTES == kUniqueIdBytes);
static_assert(static_cast<int>(ElementType::bfloat16) == ncclBfloat16 && static_cast<int>(ElementType::float16) == ncclFloat16);
static_assert(static_cast<int>(ReduceOp::avg) == ncclAvg && static_cast<int>(ReduceOp::max) == ncclMax);

namespace {

class SweepRunner {
 public:
  // -u pads both buffers by 8 bytes an element (the widest type), as nccl-tests does.
  SweepRunner(const SweepSpec& spec, const RankPlace& place, Communicator& comm, size_t buffer_bytes, size_t keep)
      : spec_(spec), place_(place), coll_(info(spec.collective)), element_(info(spec.type).bytes), comm_(comm),
        buffer_bytes_(buffer_bytes), keep_(keep), unalign_bytes_(static_cast<size_t>(spec.unalign) * element_),
        send_(buffer_bytes + 8 * static_cast<size_t>(spec.unalign)),
        recv_(buffer_bytes + 8 * static_cast<size_t>(spec.unalign)), registered_(comm, spec.registration, send_, recv_),
        marks_(static_cast<size_t>(spec.iterations) * (paired() ? 2 : 1) + (paired() ? 0 : 1)) {
    SPIRAL_CUDA(cudaMalloc(&wrong_, sizeof(unsigned long long)));
    SPIRAL_CUDA(cudaMalloc(&barrier_, sizeof(int)));
  }
  ~SweepRunner() {
    cudaFree(wrong_);
    cudaFree(barrier_);
  }

  void warm_up(uint64_t bytes) {
    for (int i = 0; i < spec_.warmup_iterations; ++i) {
      launch(bytes, false, i);
      settle();
    }
    wait();
  }

  SizeRow measure(uint64_t bytes, bool in_place) {
    const Counts c = counts(bytes);
    SizeRow row{reported_bytes(c, element_), c.param, in_place};
    launch(bytes, in_place, 0);  // untimed, as nccl-tests' first operation of each measurement
    wait();
    barrier();
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    clock::duration operations_only{};  // -z 3: the time without the barriers
    SPIRAL_CUDA(cudaEventRecord(events_.start, stream_.s));
    for (int i = 0; i < spec_.iterations; ++i) {
      const auto t = clock::now();
      launch(bytes, in_place, i);
      settle();
      operations_only += clock::now() - t;
      if (paired()) barrier();
    }
    SPIRAL_CUDA(cudaEventRecord(events_.stop, stream_.s));
    wait();
    const auto elapsed = paired() ? operations_only : clock::now() - t0;
    const double host_us = std::chrono::duration<double, std::micro>(elapsed).count();
    float ms = 0;
    SPIRAL_CUDA(cudaEventElapsedTime(&ms, events_.start, events_.stop));
    row.time_us = host_us / spec_.iterations;
    row.gpu_time_us = 1e3 * ms / spec_.iterations;
    const Bandwidth bw = bandwidth(coll_, c.param, element_, row.time_us * 1e-6, place_.nranks, row.bytes);
    row.algbw_gbps = bw.algbw_gbps;
    row.busbw_gbps = bw.busbw_gbps;
    per_iteration(bytes, in_place, row);
    // rows NCCL gives no defined result for stay wrong = -1 (not checked), as nccl-tests' N/A
    if (row_checked(coll_, in_place, spec_.check_iterations)) row.wrong = check(bytes, in_place);
    return row;
  }

 private:
  Counts counts(uint64_t bytes) const { return counts_for(spec_, bytes / element_, element_, place_.nranks); }

  // alltoallv's sends and receives for one size, kept while the size lasts
  const std::vector<PeerSegment>& segments(size_t param) {
    if (segments_param_ != param || segments_.empty()) {
      segments_ = alltoallv_segments(spec_.alltoallv, place_.rank, place_.nranks, param, element_);
      segments_param_ = param;
    }
    return segments_;
  }

  // Where this rank's operation reads and writes: in place, the input sits inside the receive
  // buffer at the rank's slice (nccl-tests' in-place offsets).
  std::pair<char*, char*> pointers(const Counts& c, bool in_place, size_t shift) const {
    shift += unalign_bytes_;  // -u
    char* recv = recv_.bytes() + shift;
    if (!in_place) return {send_.bytes() + shift, recv};
    const size_t rank = static_cast<size_t>(place_.rank);
    return {recv + c.send_inplace_offset * rank * element_, recv + c.recv_inplace_offset * rank * element_};
  }

  void launch(uint64_t bytes, bool in_place, int iteration) {
    const Counts c = counts(bytes);
    const size_t total = std::max(c.send, c.recv) * element_;
    const size_t steps = total ? buffer_bytes_ / total : 1;
    const size_t shift = total * (static_cast<size_t>(iteration) % std::max<size_t>(steps, 1));
    auto [send, recv] = pointers(c, in_place, shift);
    run_operation(send, recv, c.param);
  }

  void run_operation(const void* send, void* recv, size_t count) {
    const auto type = static_cast<ncclDataType_t>(spec_.type);
    const auto op = static_cast<ncclRedOp_t>(spec_.op);
    const int rank = place_.rank, n = place_.nranks;
    cudaStream_t s = stream_.s;
    switch (spec_.collective) {
      case Collective::send_recv:  // a ring, as nccl-tests: send to rank+1, receive from rank-1
        SPIRAL_NCCL(ncclGroupStart());
        SPIRAL_NCCL(ncclSend(send, count, type, (rank + 1) % n, comm_.comm, s));
        SPIRAL_NCCL(ncclRecv(recv, count, type, (rank + n - 1) % n, comm_.comm, s));
        SPIRAL_NCCL(ncclGroupEnd());
        return;
      case Collective::all_gather: SPIRAL_NCCL(ncclAllGather(send, recv, count, type, comm_.comm, s)); return;
      case Collective::all_reduce: SPIRAL_NCCL(ncclAllReduce(send, recv, count, type, op, comm_.comm, s)); return;
      case Collective::broadcast: SPIRAL_NCCL(ncclBroadcast(send, recv, count, type, spec_.root, comm_.comm, s)); return;
      case Collective::reduce: SPIRAL_NCCL(ncclReduce(send, recv, count, type, op, spec_.root, comm_.comm, s)); return;
      case Collective::reduce_scatter: SPIRAL_NCCL(ncclReduceScatter(send, recv, count, type, op, comm_.comm, s)); return;
      case Collective::all_to_all: SPIRAL_NCCL(ncclAlltoAll(send, recv, count, type, comm_.comm, s)); return;
      case Collective::all_to_all_v: {  // grouped sends and receives, as nccl-tests' alltoallv
        const char* from = static_cast<const char*>(send);
        char* to = static_cast<char*>(recv);
        SPIRAL_NCCL(ncclGroupStart());
        for (const PeerSegment& p : segments(count)) {
          if (p.send_count) SPIRAL_NCCL(ncclSend(from + p.send_at * element_, p.send_count, type, p.peer, comm_.comm, s));
          if (p.recv_count) SPIRAL_NCCL(ncclRecv(to + p.recv_at * element_, p.recv_count, type, p.peer, comm_.comm, s));
        }
        SPIRAL_NCCL(ncclGroupEnd());
        return;
      }
    }
  }

  // -z 3 times each operation between its own pair of events, so the barrier is outside.
  bool paired() const { return spec_.blocking == Blocking::wait_untimed_barrier; }

  // What -z puts after every operation: a wait for it (1, 2, 3), then a barrier (1; 3 has its
  // own outside the time).
  void settle() {
    if (spec_.blocking == Blocking::none) return;
    wait();
    if (spec_.blocking == Blocking::wait_barrier) barrier();
  }

  // Every rank meets here: a one-element all-reduce waited for (nccl-tests uses MPI or a thread
  // barrier; the data plane's ranks have neither). With one rank there is nobody to meet.
  void barrier() {
    if (spec_.blocking == Blocking::none || place_.nranks == 1) return;
    SPIRAL_NCCL(ncclAllReduce(barrier_, barrier_, 1, ncclInt32, ncclSum, comm_.comm, stream_.s));
    wait();
  }

  // The stream's end. With -T, polled as nccl-tests does: NCCL's asynchronous errors end the
  // wait, and past timeout_s the communicator is aborted so the cell fails instead of hanging.
  void wait() {
    if (spec_.timeout_s <= 0) {
      SPIRAL_CUDA(cudaStreamSynchronize(stream_.s));
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const cudaError_t rc = cudaStreamQuery(stream_.s);
      if (rc == cudaSuccess) return;
      if (rc != cudaErrorNotReady) SPIRAL_CUDA(rc);
      ncclResult_t async = ncclSuccess;
      SPIRAL_NCCL(ncclCommGetAsyncError(comm_.comm, &async));
      if (async != ncclSuccess && async != ncclInProgress) {
        comm_.abort();
        check_nccl(async, "an operation in flight");
      }
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(spec_.timeout_s)) {
        comm_.abort();
        throw RunFailure("NCCL: an operation did not finish within timeout_s " + std::to_string(spec_.timeout_s) +
                         " s (nccl-tests -T); the communicator was aborted");
      }
      std::this_thread::yield();
    }
  }

  // nccl-tests 2.19's -I in a pass of its own, after the mean above (which stays as nccl-tests
  // times it by default): the same operations with an event before each and one after the last,
  // no synchronisation between, so iteration i's time is event i to event i+1 on the GPU's clock.
  void per_iteration(uint64_t bytes, bool in_place, SizeRow& row) {
    const int n = spec_.iterations;
    const auto start_of = [&](int i) { return marks_.events[paired() ? 2 * i : i]; };
    const auto stop_of = [&](int i) { return marks_.events[paired() ? 2 * i + 1 : i + 1]; };
    for (int i = 0; i < n; ++i) {
      SPIRAL_CUDA(cudaEventRecord(start_of(i), stream_.s));
      launch(bytes, in_place, i);
      if (paired()) SPIRAL_CUDA(cudaEventRecord(stop_of(i), stream_.s));
      settle();
      if (paired()) barrier();
    }
    if (!paired()) SPIRAL_CUDA(cudaEventRecord(stop_of(n - 1), stream_.s));
    wait();
    std::vector<double> times_us(n);
    for (int i = 0; i < n; ++i) {
      float ms = 0;
      SPIRAL_CUDA(cudaEventElapsedTime(&ms, start_of(i), stop_of(i)));
      times_us[i] = 1e3 * ms;
    }
    row.iter_us.assign(times_us.begin(), times_us.begin() + static_cast<std::ptrdiff_t>(std::min(keep_, times_us.size())));
    const IterationStats stats = iteration_stats(std::move(times_us));
    row.p50_us = stats.p50_us;
    row.p99_us = stats.p99_us;
  }

  // One checked operation per check iteration with fresh data: the input written where the
  // operation reads it, the receive buffer poisoned, the result compared on the GPU.
  int64_t check(uint64_t bytes, bool in_place) {
    const Counts c = counts(bytes);
    unsigned long long total_wrong = 0;
    for (int iteration = 0; iteration < spec_.check_iterations; ++iteration) {
      const uint32_t seed = static_cast<uint32_t>(++checks_);
      SPIRAL_CUDA(cudaMemsetAsync(recv_.bytes(), 0xA5, unalign_bytes_ + std::max(c.send, c.recv) * element_, stream_.s));
      auto [send, recv] = pointers(c, in_place, 0);
      cuda::fill_inputs(const_cast<char*>(send), spec_.type, spec_.op, place_.rank, c.send, seed, stream_.s);
      SPIRAL_CUDA(cudaMemsetAsync(wrong_, 0, sizeof *wrong_, stream_.s));
      run_operation(send, recv, c.param);
      if (spec_.collective == Collective::all_to_all_v) {
        for (const PeerSegment& p : segments(c.param)) {
          if (!p.recv_count) continue;
          const CheckShape shape{spec_.collective, spec_.op, place_.nranks, place_.rank, p.peer, p.peer_send_at, seed};
          cuda::count_wrong(recv + p.recv_at * element_, spec_.type, shape, p.recv_count, wrong_, stream_.s);
        }
      } else {
        const CheckShape shape{spec_.collective, spec_.op, place_.nranks, place_.rank, spec_.root, c.param, seed};
        cuda::count_wrong(recv, spec_.type, shape, c.recv, wrong_, stream_.s);
      }
      unsigned long long wrong = 0;
      SPIRAL_CUDA(cudaMemcpyAsync(&wrong, wrong_, sizeof wrong, cudaMemcpyDeviceToHost, stream_.s));
      wait();
      total_wrong += wrong;
    }
    return static_cast<int64_t>(total_wrong);
  }

  const SweepSpec& spec_;
  RankPlace place_;
  const CollectiveInfo& coll_;
  size_t element_;
  Communicator& comm_;
  size_t buffer_bytes_;
  size_t keep_;  // per-iteration times kept per row (iterations_kept)
  size_t unalign_bytes_;
  NcclBuffer send_, recv_;
  Registered registered_;
  Stream stream_;
  EventPair events_;
  EventList marks_;
  unsigned long long* wrong_ = nullptr;
  int* barrier_ = nullptr;
  std::vector<PeerSegment> segments_;
  size_t segments_param_ = 0;
  uint64_t checks_ = 0;
};

}  // namespace

UniqueId new_unique_id() {
  ncclUniqueId uid;
  SPIRAL_NCCL(ncclGetUniqueId(&uid));
  UniqueId id;
  std::memcpy(id.data(), &uid, id.size());
  return id;
}

int library_version_code() {
  int code = 0;
  SPIRAL_NCCL(ncclGetVersion(&code));
  return code;
}

std::string library_version() { return version_text(library_version_code()); }

void preflight(const SweepSpec& spec) {
  const int code = library_version_code();
  bool window = false;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  window = &ncclCommWindowRegister != nullptr;
#endif
  if (const std::string why = missing_feature(spec, code, window); !why.empty()) throw BadInput("NCCL: " + why);
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  SPIRAL_CUDA(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

std::string pci_bus_id(int device) {
  char id[32] = {};
  SPIRAL_CUDA(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}

std::vector<SizeRow> run_sweep(const SweepSpec& spec, const RankPlace& place, const UniqueId& id) {
  if (spec.root < 0 || spec.root >= place.nranks)
    throw BadInput("NCCL: root " + std::to_string(spec.root) + " is not a rank of " + std::to_string(place.nranks));
  preflight(spec);
  SPIRAL_CUDA(cudaSetDevice(place.device));
  const auto sweep = sizes(spec.sweep);
  const size_t element = info(spec.type).bytes;
  // split: the sweep runs on this rank's group, ranked within it, as NCCL_TESTS_SPLIT does
  RankPlace at = place;
  SplitPlace sp;
  if (spec.split.active()) {
    sp = split_places(spec.split, place.nranks)[static_cast<size_t>(place.rank)];
    at = {sp.rank, sp.nranks, place.device};
  }
  size_t buffer_bytes = spec.sweep.max_bytes;
  for (uint64_t bytes : sweep) {
    const Counts c = counts_for(spec, bytes / element, element, at.nranks);
    buffer_bytes = std::max(buffer_bytes, std::max(c.send, c.recv) * element);
  }
  Communicator world(id, place);
  std::optional<Communicator> group;
  if (spec.split.active()) group.emplace(world.comm, sp.colour, place.rank);
  Communicator& comm = group ? *group : world;
  const size_t rows_per_sweep = sweep.size() * ((spec.out_of_place ? 1 : 0) + (spec.in_place ? 1 : 0));
  SweepRunner runner(spec, at, comm, buffer_bytes, iterations_kept(spec.iterations, rows_per_sweep));
  for (uint64_t bytes = spec.sweep.min_bytes; bytes <= spec.sweep.max_bytes; bytes *= 2) runner.warm_up(bytes);
  std::vector<SizeRow> rows;
  for (uint64_t bytes : sweep) {
    if (spec.out_of_place) rows.push_back(runner.measure(bytes, false));
    if (spec.in_place) rows.push_back(runner.measure(bytes, true));
  }
  return rows;
}

}  // namespace spiral::nccl
