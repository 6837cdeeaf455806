#pragma once
// Times one side's measured window and samples the CPU of its pinned cores over it, then
// turns the engine's counters into that side's report.
#include <optional>
#include <vector>

#include "config/cell.hpp"
#include "engine/engine.hpp"
#include "engine/engine_factory.hpp"
#include "metrics/cpu_stat.hpp"
#include "metrics/side_report.hpp"
#include "run/wire_links.hpp"
#include "sys/clock.hpp"

namespace spiral {

class SideMeter {
 public:
  SideMeter(const Cell& cell, Direction direction);  // this side's cores (side_cores)
  SideMeter(const Cell& cell, std::vector<CoreBusy> cores);

  // The links whose PHY counters this side samples at both ends of the window (wire proof).
  void watch(std::vector<LinkEnd> links) { links_ = std::move(links); }
  void begin();  // window start
  void end();    // window end (if never called, the report ends the window)
  SideReport report(const Engine& engine);
  int64_t master_mpct() const { return master_mpct_; }

 private:
  std::vector<CoreBusy> cores_;  // busy_mpct filled by report()
  int master_ = -1;
  int64_t master_mpct_ = -1;
  std::optional<Clock::time_point> start_, stop_;
  CpuSample cpu_start_, cpu_stop_;
  std::vector<LinkEnd> links_;
  std::vector<PhySample> phy_start_, phy_stop_;
};

// This side's distinct pinned cores (those its queues use) and the master, with their roles.
std::vector<CoreBusy> side_cores(const Cell& cell, Direction direction);

// Every distinct pinned core of an in-process run with its role: master, tx and rx over the
// session's sender and receiver queues, then the kind's own (LocalSession::own_cores: tx_worker).
std::vector<CoreBusy> run_cores(const Cell& cell, LocalSession& session);

}  // namespace spiral
