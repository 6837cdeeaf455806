// On a GPU machine, one rank: nccl-tests 2.17-2.19's -u -z -T -R as the engine runs them, each
// sweep with the check on (the unaligned and registered buffers must still carry right data).
// Exit 0 all passed, 1 a failure, 77 no GPU (ctest: Skipped). ctest: nccl.options_device_check.
//   run it: build the CUDA flavour with NCCL (hack/bench/nccl-device-run.sh does) and start it
#include <cstdio>
#include <string>

#include "gpu/cuda/device.hpp"
#include "sys/errors.hpp"
#include "transports/nccl/alltoallv.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"
#include "transports/nccl/features.hpp"
#include "transports/nccl/nccl_engine.hpp"
#include "transports/nccl/nccl_options.hpp"
#include "device_check_opening.hpp"
#include "support/check_report.hpp"

using namespace spiral;
using namespace spiral::nccl;

namespace {

using spiral::testing::failures;
using spiral::testing::report;

SweepSpec small(Collective c, ElementType t = ElementType::float32) {
  SweepSpec s;
  s.collective = c;
  s.type = t;
  s.sweep = {1024, 16ull << 20, 16, 0};  // 1 KiB .. 16 MiB: 4 sizes
  s.iterations = 5;
  s.check_iterations = 1;
  return s;
}

// Runs the sweep; every row timed and the checked rows right.
void expect_right(const SweepSpec& s, const std::string& what) {
  try {
    const auto rows = run_sweep(s, {0, 1, 0}, new_unique_id());
    int64_t wrong = 0, checked = 0;
    bool timed = !rows.empty();
    for (const auto& r : rows) {
      wrong += r.wrong > 0 ? r.wrong : 0;
      checked += r.wrong >= 0;
      timed = timed && r.time_us > 0 && r.p50_us > 0;
    }
    report(wrong == 0 && checked > 0 && timed, what + " " + std::string(info(s.collective).name) + ": " +
                                                   std::to_string(rows.size()) + " rows, " + std::to_string(checked) +
                                                   " checked, " + std::to_string(wrong) + " wrong");
  } catch (const std::exception& e) {
    report(false, what + " " + std::string(info(s.collective).name) + ": " + e.what());
  }
}

}  // namespace

int main() {
  if (!spiral::testing::opens_on_a_gpu()) return 77;
  for (const auto& c : collectives()) {
    SweepSpec s = small(c.id);
    s.unalign = 1;  // 4 bytes off: no longer 16-byte aligned
    expect_right(s, "unalign 1 float");
  }
  for (Collective c : {Collective::all_reduce, Collective::all_gather}) {
    SweepSpec s = small(c, ElementType::int8);
    s.unalign = 3;
    expect_right(s, "unalign 3 int8");
  }
  for (Blocking b : {Blocking::wait_barrier, Blocking::wait, Blocking::wait_untimed_barrier}) {
    SweepSpec s = small(Collective::all_reduce);
    s.blocking = b;
    expect_right(s, std::string("blocking ") + to_string(b));
  }
  {
    SweepSpec s = small(Collective::all_gather);
    s.timeout_s = 5;  // polled waits: a healthy sweep must not trip it
    expect_right(s, "timeout_s 5");
  }
  for (Registration r : {Registration::local, Registration::symmetric}) {
    for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
      SweepSpec s = small(c);
      s.registration = r;
      if (r == Registration::symmetric) {
        // the preflight must refuse exactly when the loaded NCCL is older than 2.27
        bool refused = false;
        try {
          preflight(s);
        } catch (const BadInput&) {
          refused = true;
        }
        const bool old = library_version_code() < kSymmetricRegistrationSince;
        report(refused == old, "preflight on NCCL " + library_version() + (refused ? ": refused" : ": allowed"));
        if (refused) continue;
      }
      expect_right(s, std::string("registration ") + to_string(r));
    }
  }
  for (double spread : {0.0, 0.5, 1.0}) {
    SweepSpec s = small(Collective::all_to_all_v);
    s.alltoallv.spread = spread;
    expect_right(s, "spread " + std::to_string(spread).substr(0, 3));
  }
  {
    SweepSpec s = small(Collective::all_to_all_v, ElementType::int32);
    s.alltoallv = parse_traffic_matrix("1048576");  // one rank: 1 MiB to itself
    s.sweep = {1 << 20, 1 << 20, 2, 0};
    expect_right(s, "matrix 1x1 int32");
  }
  for (Collective c : {Collective::all_reduce, Collective::all_gather}) {
    SweepSpec s = small(c);
    s.split = parse_split("MOD 1");  // one GPU: one group of one, through ncclCommSplit
    expect_right(s, "split MOD 1");
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
