#include "read/read_model.hpp"

#include "read/replica.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace det::read {

read_model::read_model(const state::cluster_state& initial, read_options opts) {
  if (!opts.now_us)
    opts.now_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  if (!opts.steady_us)
    opts.steady_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  published_ = initial.position;
  auto n = opts.replicas == 0 ? size_t{1} : opts.replicas;
  for (size_t i = 0; i < n; ++i) {
    replicas_.push_back(std::make_shared<replica>(initial, opts.now_us));
    replicas_.back()->start();
  }
  if (opts.snapshot_every > 0 && opts.snapshot) {
    snapshot_every_ = opts.snapshot_every;
    last_snapshot_ = initial.position;
    snapshot_ = std::move(opts.snapshot);
    snapshot_refused_ = std::move(opts.snapshot_refused);
    snapshot_taken_ = std::move(opts.snapshot_taken);
    steady_us_ = std::move(opts.steady_us);
    snapshot_share_ = std::clamp(opts.snapshot_share, 0.001, 1.0);
    snapshots_ = std::make_shared<replica>(initial, opts.now_us);
    snapshots_->start();
  }
}

read_model::~read_model() {
  for (auto& r : replicas_)
    r->stop();
  if (snapshots_)
    snapshots_->stop();
}

void read_model::publish(std::vector<domain_event> events,
                         int64_t last_position) {
  auto shared =
      std::make_shared<const std::vector<domain_event>>(std::move(events));
  // The position first: whoever sees this batch on a replica then finds
  // published_position() at least this far, so a read there waits for it
  // on any other replica instead of being served the state before it.
  published_ = last_position;
  for (auto& r : replicas_)
    r->publish(shared, last_position);
  if (!snapshots_)
    return;
  snapshots_->publish(shared, last_position);
  if (last_position - last_snapshot_ < snapshot_every_)
    return;
  if (steady_us_() < next_snapshot_us_->load())
    return; // one under way, or the last one's pause not over
  next_snapshot_us_->store(std::numeric_limits<int64_t>::max());
  last_snapshot_ = last_position;
  // Queued behind the batch: served at exactly last_position, at once (the
  // deadline is never reached).
  snapshots_->read(
      last_position, std::chrono::steady_clock::now() + std::chrono::hours{1},
      [fn = snapshot_, taken = snapshot_taken_, clock = steady_us_,
       next = next_snapshot_us_,
       pause = 1.0 / snapshot_share_ - 1.0](const read_view& v) {
        auto start = clock();
        fn(v.state);
        auto end = clock();
        auto took = std::max<int64_t>(0, end - start);
        auto at = end + static_cast<int64_t>(static_cast<double>(took) * pause);
        next->store(at);
        if (taken)
          taken(v.position, took, at);
      },
      [refused = snapshot_refused_, clock = steady_us_,
       next = next_snapshot_us_](int64_t, const std::string& why) {
        next->store(clock());
        if (refused)
          refused(why);
      });
}

void read_model::read(int64_t min_position,
                      std::chrono::steady_clock::time_point deadline,
                      read_fn fn, refuse_fn refuse) {
  auto i = next_.fetch_add(1) % replicas_.size();
  replicas_[i]->read(min_position, deadline, std::move(fn), std::move(refuse));
}

} // namespace det::read
