#include "control/messages.hpp"

#include "metrics/latency_json.hpp"
#include "sys/errors.hpp"

namespace spiral {

using nlohmann::json;

json hello_message(const Cell& c) {
  json hello = {{"type", "hello"},
          {"v", kProtocolVersion},
          {"transport", c.kind->name},
          {"pairs", c.pairs},
          {"payload_bytes", c.payload_bytes},
          {"base_port", c.base_port},
          {"seconds_milli", c.duration_ms},
          {"warmup_milli", c.warmup_ms}};
  if (c.search) hello["search"] = true;  // one of a search's trials: the server serves the next one after it
  return hello;
}

std::string hello_mismatch(const json& hello, const Cell& server) {
  try {
    if (hello.at("v").get<int>() != kProtocolVersion)
      return "protocol version " + hello.at("v").dump() + ", server speaks " + std::to_string(kProtocolVersion);
    auto differs = [&](const char* key, const json& mine) -> std::string {
      if (hello.at(key) != mine) return std::string(key) + " is " + hello.at(key).dump() + " on the client, " + mine.dump() + " on the server";
      return "";
    };
    if (hello.value("search", false) != server.search.has_value())
      return std::string("the client's cell ") + (server.search ? "has no search, the server's has one" : "has a search, the server's has none");
    for (auto diff : {differs("transport", server.kind->name), differs("pairs", server.pairs),
                      differs("payload_bytes", server.payload_bytes), differs("base_port", server.base_port)})
      if (!diff.empty()) return diff;
  } catch (const json::exception&) {
    return "malformed hello";
  }
  return "";
}

json search_done_message() { return {{"type", "search_done"}}; }
json welcome_message(uint32_t run_id) { return {{"type", "welcome"}, {"run_id", run_id}}; }
json error_message(const std::string& reason) { return {{"type", "error"}, {"reason", reason}}; }
json refused_message(const std::string& reason) { return {{"type", "refused"}, {"reason", reason}}; }
json measure_message() { return {{"type", "measure"}}; }
json end_message(const SideReport& sender) { return {{"type", "end"}, {"sender", to_json(sender)}}; }
json report_message(const SideReport& receiver) { return {{"type", "report"}, {"receiver", to_json(receiver)}}; }

namespace {

json queue_to_json(const QueueCounters& q) {
  json phases = json::array();
  for (const auto& p : q.by_phase) phases.push_back({p.packets, p.bytes});
  json replies = json::array();
  for (const auto& p : q.replies) replies.push_back({p.packets, p.bytes});
  return {{"by_phase", phases},       {"sent_measured", q.sent_measured}, {"first_seq", q.first_seq},
          {"last_seq", q.last_seq},   {"seen_measured", q.seen_measured}, {"min_seq", q.min_seq},
          {"max_seq", q.max_seq},     {"duplicated", q.duplicated},       {"reordered", q.reordered},
          {"stale", q.stale},         {"malformed", q.malformed},         {"foreign", q.foreign},
          {"kernel_drops", q.kernel_drops}, {"retrans", q.retrans},       {"segs_out", q.segs_out},
          {"send_errors", q.send_errors},   {"finished", q.finished},       {"rdma", to_json(q.completion)},
          {"recv_calls", q.recv_calls},     {"recv_ns", q.recv_ns},
          {"replies", replies},             {"latency", latency_to_json(q.latency)}};
}

QueueCounters queue_from_json(const json& j) {
  QueueCounters q;
  const json& phases = j.at("by_phase");
  if (phases.size() != q.by_phase.size()) throw RunFailure("control: by_phase has the wrong length");
  for (size_t i = 0; i < q.by_phase.size(); ++i) {
    q.by_phase[i].packets = phases.at(i).at(0).get<uint64_t>();
    q.by_phase[i].bytes = phases.at(i).at(1).get<uint64_t>();
  }
  j.at("sent_measured").get_to(q.sent_measured);
  j.at("first_seq").get_to(q.first_seq);
  j.at("last_seq").get_to(q.last_seq);
  j.at("seen_measured").get_to(q.seen_measured);
  j.at("min_seq").get_to(q.min_seq);
  j.at("max_seq").get_to(q.max_seq);
  j.at("duplicated").get_to(q.duplicated);
  j.at("reordered").get_to(q.reordered);
  j.at("stale").get_to(q.stale);
  j.at("malformed").get_to(q.malformed);
  j.at("foreign").get_to(q.foreign);
  j.at("kernel_drops").get_to(q.kernel_drops);
  j.at("retrans").get_to(q.retrans);
  j.at("segs_out").get_to(q.segs_out);
  j.at("send_errors").get_to(q.send_errors);
  j.at("finished").get_to(q.finished);
  q.recv_calls = j.value("recv_calls", uint64_t{0});  // absent from peers older than the field
  q.recv_ns = j.value("recv_ns", uint64_t{0});
  q.completion = completion_counters_from_json(j.at("rdma"));
  if (j.contains("replies")) {  // absent from peers older than the latency mode
    const json& replies = j.at("replies");
    if (replies.size() != q.replies.size()) throw RunFailure("control: replies has the wrong length");
    for (size_t i = 0; i < q.replies.size(); ++i) {
      q.replies[i].packets = replies.at(i).at(0).get<uint64_t>();
      q.replies[i].bytes = replies.at(i).at(1).get<uint64_t>();
    }
    q.latency = latency_from_json(j.at("latency"));
  }
  return q;
}

}  // namespace

json to_json(const SideReport& r) {
  json queues = json::array();
  for (const auto& q : r.queues) queues.push_back(queue_to_json(q));
  json cores = json::array();
  for (const auto& c : r.cores) cores.push_back({{"core", c.core}, {"role", c.role}, {"busy_mpct", c.busy_mpct}});
  json j = {{"window_ms", r.window_ms}, {"queues", queues}, {"cores", cores}, {"failure", r.failure}};
  if (r.gpu.used()) j["gpu"] = gpu::to_json(r.gpu);
  json links = json::array();
  for (const auto& l : r.links)
    links.push_back({{"address", l.address}, {"netdev", l.netdev}, {"available", l.available},
                     {"tx_bytes_phy", l.tx_bytes_phy}, {"rx_bytes_phy", l.rx_bytes_phy},
                     {"tx_packets_phy", l.tx_packets_phy}, {"rx_packets_phy", l.rx_packets_phy}, {"note", l.note}});
  j["links"] = links;
  return j;
}

SideReport side_report_from_json(const json& j) {
  try {
    SideReport r;
    j.at("window_ms").get_to(r.window_ms);
    for (const auto& q : j.at("queues")) r.queues.push_back(queue_from_json(q));
    for (const auto& c : j.at("cores"))
      r.cores.push_back({c.at("core").get<int>(), c.at("role").get<std::string>(), c.at("busy_mpct").get<int64_t>()});
    j.at("failure").get_to(r.failure);
    if (j.contains("gpu")) r.gpu = gpu::gpu_report_from_json(j.at("gpu"));
    if (j.contains("links"))
      for (const auto& l : j.at("links")) {
        WireSide w;
        l.at("address").get_to(w.address);
        l.at("netdev").get_to(w.netdev);
        l.at("available").get_to(w.available);
        l.at("tx_bytes_phy").get_to(w.tx_bytes_phy);
        l.at("rx_bytes_phy").get_to(w.rx_bytes_phy);
        l.at("tx_packets_phy").get_to(w.tx_packets_phy);
        l.at("rx_packets_phy").get_to(w.rx_packets_phy);
        l.at("note").get_to(w.note);
        r.links.push_back(std::move(w));
      }
    return r;
  } catch (const json::exception& e) {
    throw RunFailure(std::string("control: malformed report: ") + e.what());
  }
}

}  // namespace spiral
