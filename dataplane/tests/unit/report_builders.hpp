#pragma once
// Small builders for side reports, so result tests read as the situation they describe.
#include "config/cell.hpp"
#include "kinds/registry.hpp"
#include "transports/roce/rdma_options.hpp"
#include "metrics/side_report.hpp"

namespace spiral::testing {

inline Cell udp_cell(uint32_t pairs = 1) {
  Cell c;
  c.kind = &kind_named("udp");
  c.role = Role::client;
  c.pairs = pairs;
  c.payload_bytes = 1000;
  c.batch = 64;
  return c;
}

inline Cell roce_cell(RdmaOptions::Verb verb, uint32_t queue_pairs = 1) {
  Cell c;
  c.kind = &kind_named("roce");
  c.role = Role::client;
  c.pairs = queue_pairs;
  c.payload_bytes = 65536;
  c.batch = 1;
  RdmaOptions options;
  options.verb = verb;
  c.options = options;
  return c;
}

inline Cell tcp_cell(uint32_t pairs = 1) {
  Cell c;
  c.kind = &kind_named("tcp");
  c.role = Role::server;
  c.pairs = pairs;
  c.payload_bytes = 1000;
  c.batch = 1;
  return c;
}

// A UDP sender queue that numbered first..last inside the window.
inline QueueCounters udp_sent(uint64_t first, uint64_t last, uint32_t payload = 1000) {
  QueueCounters q;
  q.sent_measured = true;
  q.first_seq = first;
  q.last_seq = last;
  q.by_phase[index(Phase::measure)] = {last - first + 1, (last - first + 1) * payload};
  q.by_phase[index(Phase::warmup)] = {first, first * payload};
  return q;
}

// A UDP receiver queue that saw `received` unique datagrams between min and max.
inline QueueCounters udp_received(uint64_t min, uint64_t max, uint64_t received, uint32_t payload = 1000) {
  QueueCounters q;
  q.seen_measured = received > 0;
  q.min_seq = min;
  q.max_seq = max;
  q.by_phase[index(Phase::measure)] = {received, received * payload};
  q.finished = true;
  return q;
}

inline QueueCounters tcp_stream(uint64_t window_bytes, uint64_t all_bytes, bool finished, uint32_t payload = 1000) {
  QueueCounters q;
  q.by_phase[index(Phase::warmup)] = {0, all_bytes - window_bytes};
  q.by_phase[index(Phase::measure)] = {window_bytes / payload, window_bytes};
  q.finished = finished;
  return q;
}

inline SideReport side(std::vector<QueueCounters> queues, int64_t window_ms = 1000) {
  SideReport r;
  r.window_ms = window_ms;
  r.queues = std::move(queues);
  return r;
}

}  // namespace spiral::testing
