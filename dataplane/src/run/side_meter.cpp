#include "run/side_meter.hpp"

#include <set>

#include "engine/queue_cores.hpp"
#include "gpu/receive_path.hpp"

namespace spiral {

std::vector<CoreBusy> side_cores(const Cell& cell, Direction direction) {
  std::vector<CoreBusy> cores;
  if (cell.cores.master >= 0) cores.push_back({cell.cores.master, "master", -1});
  const bool send = direction == Direction::send;
  std::set<int> seen;
  for (int core : queue_cores(send ? cell.cores.tx : cell.cores.rx, cell.pairs))
    if (core >= 0 && seen.insert(core).second) cores.push_back({core, send ? "tx" : "rx", -1});
  return cores;
}

std::vector<CoreBusy> run_cores(const Cell& cell, LocalSession& session) {
  std::vector<CoreBusy> cores;
  if (cell.cores.master >= 0) cores.push_back({cell.cores.master, "master", -1});
  add_queue_cores(cores, cell.cores.tx, session.sender().counters().size(), "tx");
  add_queue_cores(cores, cell.cores.rx, session.receiver().counters().size(), "rx");
  session.own_cores(cores);
  return cores;
}

SideMeter::SideMeter(const Cell& cell, Direction direction) : SideMeter(cell, side_cores(cell, direction)) {}

SideMeter::SideMeter(const Cell& cell, std::vector<CoreBusy> cores)
    : cores_(std::move(cores)), master_(cell.cores.master) {}

void SideMeter::begin() {
  phy_start_ = sample_links(links_);
  cpu_start_ = read_proc_stat();
  start_ = Clock::now();
}

void SideMeter::end() {
  if (!start_ || stop_) return;
  stop_ = Clock::now();
  cpu_stop_ = read_proc_stat();
  phy_stop_ = sample_links(links_);
}

SideReport SideMeter::report(const Engine& engine) {
  end();
  SideReport r;
  r.window_ms = start_ ? millis_between(*start_, *stop_) : 0;
  r.queues = engine.counters();
  r.failure = engine.failure().value_or("");
  if (const auto* g = dynamic_cast<const gpu::GpuReporting*>(&engine)) r.gpu = g->gpu_report();
  for (size_t k = 0; k < links_.size(); ++k) {
    PhySample none;
    none.note = "the window never started";
    const bool sampled = k < phy_start_.size() && k < phy_stop_.size();
    r.links.push_back(wire_delta(links_[k].address, links_[k].netdev, sampled ? phy_start_[k] : none,
                                 sampled ? phy_stop_[k] : none));
  }
  for (CoreBusy c : cores_) {
    c.busy_mpct = start_ ? busy_mpct(cpu_start_, cpu_stop_, c.core) : -1;
    if (c.role == "master") master_mpct_ = c.busy_mpct;
    r.cores.push_back(c);
  }
  return r;
}

}  // namespace spiral
