#include "read/replica.hpp"

#include "messages/errc.hpp"

#include <algorithm>

namespace det::read {

replica::replica(const state::cluster_state& initial,
                 std::function<int64_t()> now_us)
    : state_(initial), now_us_(std::move(now_us)) {}

replica::~replica() {
  // stop() joined or detached the thread before the last owner let go.
}

void replica::start() {
  thread_ = std::thread{[self = shared_from_this()] { self->run(); }};
}

void replica::stop() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    stop_ = true;
  }
  cv_.notify_one();
  if (!thread_.joinable())
    return;
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach();
  else
    thread_.join();
}

void replica::publish(std::shared_ptr<const std::vector<domain_event>> events,
                      int64_t last_position) {
  {
    std::lock_guard<std::mutex> guard{mu_};
    queue_.emplace_back(batch{std::move(events), last_position});
  }
  cv_.notify_one();
}

void replica::read(int64_t min_position,
                   std::chrono::steady_clock::time_point deadline, read_fn fn,
                   refuse_fn refuse) {
  {
    std::lock_guard<std::mutex> guard{mu_};
    queue_.emplace_back(
        query{min_position, deadline, std::move(fn), std::move(refuse)});
  }
  cv_.notify_one();
}

void replica::run() {
  std::deque<item> work;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock{mu_};
      auto ready = [this] { return stop_ || !queue_.empty(); };
      if (waiting_.empty()) {
        cv_.wait(lock, ready);
      } else {
        auto first = std::min_element(waiting_.begin(), waiting_.end(),
                                      [](const query& a, const query& b) {
                                        return a.deadline < b.deadline;
                                      });
        cv_.wait_until(lock, first->deadline, ready);
      }
      if (stop_)
        break;
      work.swap(queue_);
    }
    for (auto& w : work) {
      if (auto b = std::get_if<batch>(&w)) {
        apply(*b);
        answer_ready();
      } else {
        serve(std::get<query>(w));
      }
    }
    work.clear();
    expire(std::chrono::steady_clock::now());
  }
  for (auto& q : waiting_)
    q.refuse(state_.position, "the read model stopped");
  std::lock_guard<std::mutex> guard{mu_};
  for (auto& w : queue_)
    if (auto q = std::get_if<query>(&w))
      q->refuse(state_.position, "the read model stopped");
}

void replica::apply(const batch& b) {
  if (!broken_.empty())
    return;
  touched t;
  for (const auto& ev : *b.events) {
    touched_records(state_, ev, t);
    recorded_event meta;
    meta.position = state_.position + 1;
    meta.stream = stream_of(ev);
    if (auto err = state::apply(state_, meta, ev)) {
      broken_ = "a read replica could not apply the durable event at "
                + std::to_string(meta.position) + ": " + render(err);
      return;
    }
    touched_records(state_, ev, t);
  }
  if (state_.position != b.last_position)
    broken_ = "a read replica is at " + std::to_string(state_.position)
              + " after a batch that ends at "
              + std::to_string(b.last_position);
  rows_.drop(t);
}

void replica::serve(query& q) {
  if (!broken_.empty()) {
    q.refuse(state_.position, broken_);
    return;
  }
  if (state_.position < q.min_position) {
    waiting_.push_back(std::move(q));
    return;
  }
  q.fn(read_view{state_, state_.position, now_us_(), rows_});
}

void replica::answer_ready() {
  auto ready = std::stable_partition(
      waiting_.begin(), waiting_.end(), [this](const query& q) {
        return q.min_position > state_.position && broken_.empty();
      });
  std::vector<query> now(std::make_move_iterator(ready),
                         std::make_move_iterator(waiting_.end()));
  waiting_.erase(ready, waiting_.end());
  for (auto& q : now)
    serve(q);
}

void replica::expire(std::chrono::steady_clock::time_point now) {
  auto late =
      std::stable_partition(waiting_.begin(), waiting_.end(),
                            [now](const query& q) { return q.deadline > now; });
  std::vector<query> out(std::make_move_iterator(late),
                         std::make_move_iterator(waiting_.end()));
  waiting_.erase(late, waiting_.end());
  for (auto& q : out)
    q.refuse(state_.position, "the read model did not reach position "
                                  + std::to_string(q.min_position)
                                  + " in time (it is at "
                                  + std::to_string(state_.position) + ")");
}

} // namespace det::read
