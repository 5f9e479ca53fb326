#pragma once

// Followers of the master's durable events (master_options::on_durable):
// each new follower runs first, then the ones set before it. Runs on the
// master's thread; a follower must not block.

#include "actors/master_actor.hpp"

#include <cstdint>
#include <functional>
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

} // namespace det::api
