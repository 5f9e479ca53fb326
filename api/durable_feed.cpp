#include "api/durable_feed.hpp"

namespace det::api {

std::shared_ptr<read::read_model> follow_master(master_options& mo,
                                                state::cluster_state st,
                                                read::read_options ro) {
  auto reads = std::make_shared<read::read_model>(std::move(st), ro);
  mo.on_durable = [reads](std::vector<domain_event> events, int64_t last) {
    reads->publish(std::move(events), last);
  };
  return reads;
}

std::shared_ptr<read::metrics_history> follow_metrics(master_options& mo) {
  auto history = std::make_shared<read::metrics_history>();
  follow_durable(mo,
                 [history](const std::vector<domain_event>& events,
                           int64_t last) { history->observe(events, last); });
  return history;
}

} // namespace det::api
