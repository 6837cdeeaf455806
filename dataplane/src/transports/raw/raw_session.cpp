// The raw kind's session for the in-process run driver (run/in_process.cpp): the DPDK
// environment, the sender and the receiver, and the port counters over the window and drain.
#include "transports/raw/raw_session.hpp"
#include "transports/raw/raw_options.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "sys/clock.hpp"
#include "sys/errors.hpp"
#include "gpu/nvml_sampler.hpp"
#include "metrics/side_report.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/forward_result.hpp"
#include "transports/raw/forwarder.hpp"
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

std::string mac_text(const Mac& m) {
  char text[18];
  std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return text;
}

// Forward mode: the receiving side is the forwarder and the receiver behind it. The forwarder
// starts first and stops first (after the drain, everything it forwarded has arrived); either's
// failure is the run's.
class ForwardChain : public Engine {
 public:
  ForwardChain(Forwarder& forwarder, RawReceiver& rx) : fwd_(forwarder), rx_(rx) {}
  void open() override {}  // the session opens both
  void start() override {
    rx_.start();
    fwd_.start();
  }
  void set_phase(Phase p) override { rx_.set_phase(p); }
  std::vector<QueueCounters> counters() const override { return rx_.counters(); }
  std::optional<std::string> failure() const override {
    if (auto f = fwd_.failure()) return "forwarder: " + *f;
    return rx_.failure();
  }
  void stop() override {
    fwd_.stop();
    rx_.stop();
  }

 private:
  Forwarder& fwd_;
  RawReceiver& rx_;
};

class RawSession : public LocalSession {
 public:
  RawSession(const Cell& cell, uint32_t run_id)
      : cell_(cell), env_((install_crash_report(), require_gpu(cell), cell)) {
    tx_.emplace(cell, env_, run_id);
    rx_.emplace(cell, env_, run_id);
    if (env_.forwarding()) {
      fwd_ = std::make_unique<Forwarder>(cell, env_);
      chain_ = std::make_unique<ForwardChain>(*fwd_, *rx_);
    }
  }

  Engine& sender() override { return *tx_; }
  Engine& receiver() override { return chain_ ? static_cast<Engine&>(*chain_) : *rx_; }

  void open() override {
    tx_->open();
    rx_->open();
    if (fwd_) {
      fwd_->open();
      if (on_gpu(raw_options(cell_).forward.work))
        nvml_ = std::make_unique<gpu::NvmlSampler>(gpu::burst_work_device_bus_id());
    }
    env_.start_ports(Millis(cell_.connect_timeout_ms));
  }

  // A rate-search trial (run/search_run.cpp): new engines on the same DPDK session. The ports
  // stay started: frames still in flight from the last trial reach the new receiver with the old
  // run id and count as foreign there.
  void renew(const Cell& trial, uint32_t run_id) override {
    if (fwd_) throw BadInput("the forward mode has no rate search yet: remove search (run.search) or forward");
    tx_.reset();  // frees their worker rings, whose names the new engines take again
    rx_.reset();
    trial_ = std::make_unique<Cell>(trial);
    tx_.emplace(*trial_, env_, run_id);
    rx_.emplace(*trial_, env_, run_id);
    tx_->open();
    rx_->open();
    before_.reset();
    after_.reset();
  }

  void ready_fields(nlohmann::json& ready) const override {
    const RawOptions& o = raw_options(cell_);
    ready["tx_port"] = o.tx_port;
    ready["rx_port"] = o.rx_port;
    if (fwd_) {
      ready["forward_rx_port"] = o.forward.rx_port;
      ready["forward_tx_port"] = o.forward.tx_port;
    }
    ready["tx_queues"] = o.tx_queues;
    ready["rx_queues"] = o.rx_queues;
  }

  void window_started() override {
    before_ = env_.snapshot();
    if (nvml_) nvml_->start();
  }
  void window_ended() override {
    if (nvml_) nvml_->stop();
  }
  void drained() override { after_ = env_.snapshot(); }
  bool sender_finished() const override { return tx_->finished(); }

  void own_cores(std::vector<CoreBusy>& cores) const override {
    const CoreMap& c = cell_.cores;
    add_queue_cores(cores, c.list("tx_workers"), tx_->counters().size(), "tx_worker");
    add_queue_cores(cores, c.list("rx_workers"), rx_->counters().size(), "rx_worker");
    add_queue_cores(cores, c.list("forward_rx"), c.list("forward_rx").size(), "forward_rx");
    add_queue_cores(cores, c.list("forward_tx"), c.list("forward_tx").size(), "forward_tx");
  }

  void account(const Cell& cell, const SideReport& sender, const SideReport& receiver,
               RunResult& r) const override {
    RawMeasurement m;
    m.window_ms = sender.window_ms;
    m.tx = sender.queues;
    m.rx = receiver.queues;
    m.rx_streams = rx_->stream_stats();
    if (before_ && after_) m.ports = deltas(*before_, *after_);
    m.cores = sender.cores;
    for (const CoreBusy& c : m.cores)
      if (c.role == "master") m.master_mpct = c.busy_mpct;
    r = combine_raw(cell, m);
    r.gpu = receiver.gpu;  // the GPU receive path's windows, stalls and utilisation
    RawFigures& figures = raw_figures(r);
    env_.describe(figures);
    if (fwd_) forward_figures(cell, m.ports, r, figures.forward);  // after r.gpu: NVML of the forward work
  }

 private:
  // The forward figures; NVML's utilisation also goes into the run's GPU figures (gpu_sm_mpct
  // of the record, summary and CSV), as a receive-path workload's does.
  void forward_figures(const Cell& cell, const PortDeltas& ports, RunResult& r, ForwardFigures& f) const {
    const ForwardOptions& o = raw_options(cell).forward;
    f.enabled = true;
    f.work = to_string(o.work);
    f.pipelines = o.pipelines;
    f.burst = cell.batch;
    f.work_ns = o.work_ns;
    fwd_->fill(f);
    rx_->mac_counts(f);
    f.sender_mac = mac_text(env_.tx_mac());
    f.receiver_mac = mac_text(env_.rx_mac());
    f.imissed = ports.forward_imissed;
    f.rx_nombuf = ports.forward_rx_nombuf;
    f.oerrors = ports.forward_oerrors;
    forward_rates(f, r);
    if (!nvml_) {
      f.gpu_note = on_gpu(o.work) ? "no GPU sampler" : "CPU work";
    } else if (!nvml_->available()) {
      f.gpu_note = nvml_->status();
    } else {
      const gpu::NvmlSampler::Figures g = nvml_->figures();
      f.gpu_sm_mpct = r.gpu.sm_mpct = g.sm_mpct;
      r.gpu.mem_mpct = g.mem_mpct;
      r.gpu.samples = g.samples;
    }
    if (nvml_) r.gpu.nvml = nvml_->status();
  }

  // GPU forward work without a usable GPU: refused before DPDK or CUDA memory is touched.
  static int require_gpu(const Cell& cell) {
    const ForwardWork w = raw_options(cell).forward.work;
    if (on_gpu(w)) gpu::require_burst_work_gpu(std::string("forward_work ") + to_string(w));
    return 0;
  }

  static void install_crash_report() {
    std::signal(SIGSEGV, report_crash);
    std::signal(SIGBUS, report_crash);
  }

  const Cell& cell_;
  DpdkEnvironment env_;
  std::unique_ptr<Cell> trial_;  // the cell of the current search trial (renew), which the engines read
  std::optional<RawSender> tx_;
  std::optional<RawReceiver> rx_;
  std::unique_ptr<Forwarder> fwd_;       // forward mode
  std::unique_ptr<ForwardChain> chain_;  // forward mode: what the driver sees as the receiver
  std::unique_ptr<gpu::NvmlSampler> nvml_;  // GPU forward work
  std::optional<PortSnapshot> before_, after_;
};

}  // namespace

std::unique_ptr<LocalSession> make_session(const Cell& cell, uint32_t run_id) {
  return std::make_unique<RawSession>(cell, run_id);
}

}  // namespace spiral::raw
