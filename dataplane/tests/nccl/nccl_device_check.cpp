// On a GPU machine: every NCCL operation at one rank (NCCL 2.28 refuses two ranks on one GPU)
// with the check on, over sizes and placements and several type/reduction pairs; a negative
// control proves the check catches wrong data; the copy bench measures every case once.
// Exit 0 all passed, 1 a failure, 77 no GPU (ctest: Skipped). ctest: nccl.device_check.
//   run it: build the CUDA flavour with NCCL (hack/bench/nccl-device-run.sh does) and start it
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "gpu/cuda/check.hpp"
#include "gpu/cuda/device.hpp"
#include "transports/gpucopy/cuda/copy_engine.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/cuda/buffers_check.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/nccl_engine.hpp"
#include "device_check_opening.hpp"
#include "support/check_report.hpp"

using namespace spiral;
using namespace spiral::nccl;

namespace {

using spiral::testing::failures;
using spiral::testing::report;

void check_operation(Collective c, ElementType t, ReduceOp op, const UniqueId& id) {
  SweepSpec spec;
  spec.collective = c;
  spec.type = t;
  spec.op = op;
  spec.sweep = {8, 64ull << 20, 8, 0};  // 8 B .. 64 MiB
  spec.iterations = 3;
  spec.warmup_iterations = 1;
  spec.check_iterations = 2;
  const auto rows = run_sweep(spec, {0, 1, 0}, id);
  int64_t wrong = 0, checked = 0, as_defined = 0;
  for (const auto& r : rows) {
    if (r.wrong > 0) wrong += r.wrong;
    checked += r.wrong >= 0;
    as_defined += (r.wrong >= 0) == row_checked(info(c), r.in_place, spec.check_iterations);
  }
  // in-place sendrecv and alltoall are timed, not checked (NCCL defines no in-place form)
  report(wrong == 0 && as_defined == static_cast<int64_t>(rows.size()) && rows.size() == 2 * 8,
         std::string(info(c).name) + " " + std::string(info(t).name) + " " + std::string(name(op)) + ": " +
             std::to_string(rows.size()) + " rows, " + std::to_string(checked) + " checked, " + std::to_string(wrong) +
             " wrong elements");
}

// The check itself must be able to fail: data of another seed is wrong wherever the two seeds'
// values differ, 7 elements in 8 (values are hashed into 0..7).
void negative_control() {
  const uint64_t count = 1 << 20;
  void* data = nullptr;
  unsigned long long* wrong = nullptr;
  SPIRAL_CUDA(cudaMalloc(&data, count * sizeof(float)));
  SPIRAL_CUDA(cudaMalloc(reinterpret_cast<void**>(&wrong), sizeof *wrong));
  SPIRAL_CUDA(cudaMemset(wrong, 0, sizeof *wrong));
  cuda::fill_inputs(data, ElementType::float32, ReduceOp::sum, 0, count, 1, nullptr);
  const CheckShape other_seed{Collective::all_reduce, ReduceOp::sum, 1, 0, 0, count, 2};
  cuda::count_wrong(data, ElementType::float32, other_seed, count, wrong, nullptr);
  unsigned long long host = 0;
  SPIRAL_CUDA(cudaMemcpy(&host, wrong, sizeof host, cudaMemcpyDeviceToHost));
  report(host > count * 3 / 4, "negative control: " + std::to_string(host) + " of " + std::to_string(count) +
                                   " elements of another seed flagged");
  cudaFree(wrong);
  cudaFree(data);
}

void copy_bench_runs() {
  gpucopy::CopySpec spec;
  spec.sweep = {1 << 20, 4 << 20, 4, 0};
  spec.iterations = 3;
  const auto r = gpucopy::measure_gpu(spec, 0);
  bool positive = r.rows.size() == 5 * 2;
  for (const auto& row : r.rows) positive = positive && row.gbps > 0;
  report(positive, "gpucopy: " + std::to_string(r.rows.size()) + " rows on " + r.gpu.name + ", NUMA node " +
                       std::to_string(r.gpu.numa_node) + ", PCIe gen " + std::to_string(r.gpu.pcie_generation) +
                       " x" + std::to_string(r.gpu.pcie_width));
}

}  // namespace

int main() {
  if (!spiral::testing::opens_on_a_gpu()) return 77;
  try {
    negative_control();
    for (const auto& c : collectives()) check_operation(c.id, ElementType::float32, ReduceOp::sum, new_unique_id());
    for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::reduce}) {
      check_operation(c, ElementType::int32, ReduceOp::max, new_unique_id());
      check_operation(c, ElementType::bfloat16, ReduceOp::avg, new_unique_id());
      check_operation(c, ElementType::float16, ReduceOp::prod, new_unique_id());
      check_operation(c, ElementType::uint8, ReduceOp::min, new_unique_id());
      check_operation(c, ElementType::float64, ReduceOp::sum, new_unique_id());
    }
    check_operation(Collective::all_gather, ElementType::int8, ReduceOp::sum, new_unique_id());
    check_operation(Collective::all_to_all, ElementType::uint64, ReduceOp::sum, new_unique_id());
    copy_bench_runs();
  } catch (const std::exception& e) {
    report(false, std::string("error: ") + e.what());
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
