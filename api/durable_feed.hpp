#pragma once

// Followers of the master's durable events (master_options::on_durable):
// each new follower runs first, then the ones set before it. Runs on the
// master's thread; a follower must not block. The read model and the
// metric history are the first two (durable_feed.cpp).

#include "actors/master_actor.hpp"
#include "read/metrics_history.hpp"
#include "read/read_model.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace det::api {

inline void follow_durable(
    master_options& mo,
    std::function<void(const std::vector<domain_event>&, int64_t)> follower) {
  mo.on_durable = [follower = std::move(follower),
                   next = std::move(mo.on_durable)](
                      std::vector<domain_event> events, int64_t last) {
    follower(events, last);
    if (next)
      next(std::move(events), last);
  };
}

/// A read model that starts from `st` and follows every event the master
/// makes durable (it sets `mo.on_durable`): what api_context::reads holds.
std::shared_ptr<read::read_model> follow_master(master_options& mo,
                                                state::cluster_state st,
                                                read::read_options ro = {});

/// A metric history fed the events the master makes durable (it chains
/// onto `mo.on_durable`): what api_context::history holds.
std::shared_ptr<read::metrics_history> follow_metrics(master_options& mo);

} // namespace det::api
