// The raw kind's session for the in-process run driver (run/in_process.cpp): the DPDK
// environment, the sender and the receiver, and the port counters over the window and drain.
#include "transports/raw/raw_session.hpp"
#include "transports/raw/raw_options.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <optional>

#include "sys/clock.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/raw_figures.hpp"
#include "transports/raw/raw_receiver.hpp"
#include "transports/raw/raw_result.hpp"
#include "transports/raw/raw_sender.hpp"

namespace spiral::raw {

namespace {

// DPDK's virtual drivers have rare crashes of their own (memif's control thread was seen to
// segfault at a disconnect): say where, then die as before, so a rare failure leaves a trace.
void report_crash(int sig) {
  static const char head[] = "spiral-dataplane: fatal signal in the raw transport; stack:\n";
  [[maybe_unused]] auto n = ::write(2, head, sizeof head - 1);
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class RawSession : public LocalSession {
 public:
  RawSession(const Cell& cell, uint32_t run_id)
      : cell_(cell), env_((install_crash_report(), cell)), tx_(cell, env_, run_id), rx_(cell, env_, run_id) {}

  Engine& sender() override { return tx_; }
  Engine& receiver() override { return rx_; }

  void open() override {
    tx_.open();
    rx_.open();
    env_.start_ports(Millis(cell_.connect_timeout_ms));
  }

  void ready_fields(nlohmann::json& ready) const override {
    const RawOptions& o = raw_options(cell_);
    ready["tx_port"] = o.tx_port;
    ready["rx_port"] = o.rx_port;
    ready["tx_queues"] = o.tx_queues;
    ready["rx_queues"] = o.rx_queues;
  }

  void window_started() override { before_ = env_.snapshot(); }
  void drained() override { after_ = env_.snapshot(); }
  bool sender_finished() const override { return tx_.finished(); }

  void account(const Cell& cell, const SideReport& sender, const SideReport& receiver,
               RunResult& r) const override {
    RawMeasurement m;
    m.window_ms = sender.window_ms;
    m.tx = sender.queues;
    m.rx = receiver.queues;
    m.rx_streams = rx_.stream_stats();
    if (before_ && after_) m.ports = deltas(*before_, *after_);
    m.cores = sender.cores;
    for (const CoreBusy& c : m.cores)
      if (c.role == "master") m.master_mpct = c.busy_mpct;
    r = combine_raw(cell, m);
    r.gpu = receiver.gpu;  // the GPU receive path's windows, stalls and utilisation (issue 15)
    env_.describe(raw_figures(r));
  }

 private:
  static void install_crash_report() {
    std::signal(SIGSEGV, report_crash);
    std::signal(SIGBUS, report_crash);
  }

  const Cell& cell_;
  DpdkEnvironment env_;
  RawSender tx_;
  RawReceiver rx_;
  std::optional<PortSnapshot> before_, after_;
};

}  // namespace

std::unique_ptr<LocalSession> make_session(const Cell& cell, uint32_t run_id) {
  return std::make_unique<RawSession>(cell, run_id);
}

}  // namespace spiral::raw
