#include "engine/completion_counters.hpp"

#include <nlohmann/json.hpp>

namespace spiral {

namespace {
constexpr const char* kWcStatusNames[] = {
    "IBV_WC_SUCCESS",          "IBV_WC_LOC_LEN_ERR",       "IBV_WC_LOC_QP_OP_ERR",     "IBV_WC_LOC_EEC_OP_ERR",
    "IBV_WC_LOC_PROT_ERR",     "IBV_WC_WR_FLUSH_ERR",      "IBV_WC_MW_BIND_ERR",       "IBV_WC_BAD_RESP_ERR",
    "IBV_WC_LOC_ACCESS_ERR",   "IBV_WC_REM_INV_REQ_ERR",   "IBV_WC_REM_ACCESS_ERR",    "IBV_WC_REM_OP_ERR",
    "IBV_WC_RETRY_EXC_ERR",    "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",  "IBV_WC_REM_INV_RD_REQ_ERR",
    "IBV_WC_REM_ABORT_ERR",    "IBV_WC_INV_EECN_ERR",      "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
    "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR",       "IBV_WC_TM_ERR",            "IBV_WC_TM_RNDV_INCOMPLETE",
};
constexpr size_t kNamed = sizeof kWcStatusNames / sizeof kWcStatusNames[0];
static_assert(kNamed < kWcStatusSlots, "the last slot collects unnamed statuses");
}  // namespace

std::string wc_status_name(size_t status) {
  return status < kNamed ? kWcStatusNames[status] : "IBV_WC_" + std::to_string(status);
}

nlohmann::json to_json(const CompletionCounters& c) {
  return {{"completions", c.completions},
          {"wc_errors", c.wc_errors},
          {"verified", c.verified},
          {"corrupt", c.corrupt},
          {"out_of_order", c.out_of_order},
          {"retries", c.retries}};
}

CompletionCounters completion_counters_from_json(const nlohmann::json& j) {
  CompletionCounters c;
  j.at("completions").get_to(c.completions);
  const auto& errors = j.at("wc_errors");
  if (!errors.is_array() || errors.size() != c.wc_errors.size())
    throw nlohmann::json::type_error::create(302, "wc_errors has the wrong length", &errors);
  for (size_t i = 0; i < c.wc_errors.size(); ++i) errors.at(i).get_to(c.wc_errors[i]);
  j.at("verified").get_to(c.verified);
  j.at("corrupt").get_to(c.corrupt);
  j.at("out_of_order").get_to(c.out_of_order);
  j.at("retries").get_to(c.retries);
  return c;
}

}  // namespace spiral
