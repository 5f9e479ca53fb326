#include "store/group_appender.hpp"

namespace det {

group_appender::group_appender(event_store& store, options opts)
    : store_(store), opts_(opts) {
  thread_ = std::thread([this] { run(); });
}

group_appender::~group_appender() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void group_appender::submit(append_request req, callback done) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    queue_.push_back(item{std::move(req), std::move(done), nullptr});
  }
  cv_.notify_one();
}

std::future<caf::expected<append_result>>
group_appender::submit(append_request req) {
  auto promise = std::make_shared<std::promise<caf::expected<append_result>>>();
  auto fut = promise->get_future();
  submit(std::move(req), [promise](caf::expected<append_result> res) {
    promise->set_value(std::move(res));
  });
  return fut;
}

void group_appender::post(std::function<void(event_store&)> fn) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    queue_.push_back(item{{}, nullptr, std::move(fn)});
  }
  cv_.notify_one();
}

group_appender::statistics group_appender::stats() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return stats_;
}

void group_appender::run() {
  std::vector<append_request> batch;
  std::vector<callback> callbacks;
  for (;;) {
    std::function<void(event_store&)> task;
    {
      std::unique_lock<std::mutex> lock{mtx_};
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, and everything submitted is done
      if (queue_.front().task) {
        task = std::move(queue_.front().task);
        queue_.pop_front();
      } else {
        auto take = [&] {
          size_t events = 0;
          for (auto& r : batch)
            events += r.events.size();
          while (!queue_.empty() && !queue_.front().task
                 && (batch.empty()
                     || events + queue_.front().req.events.size()
                            <= opts_.max_batch_events)) {
            events += queue_.front().req.events.size();
            batch.push_back(std::move(queue_.front().req));
            callbacks.push_back(std::move(queue_.front().done));
            queue_.pop_front();
          }
          return events;
        };
        auto events = take();
        if (opts_.max_wait.count() > 0 && events < opts_.max_batch_events
            && !stopping_) {
          auto deadline = std::chrono::steady_clock::now() + opts_.max_wait;
          while (events < opts_.max_batch_events && !stopping_
                 && cv_.wait_until(lock, deadline) != std::cv_status::timeout)
            events = take();
          take();
        }
      }
    }
    if (task) {
      task(store_);
      continue;
    }
    auto results = store_.append_many(batch);
    {
      std::lock_guard<std::mutex> guard{mtx_};
      ++stats_.batches;
      stats_.requests += batch.size();
      for (auto& r : batch)
        stats_.events += r.events.size();
    }
    for (size_t i = 0; i < callbacks.size(); ++i)
      callbacks[i](std::move(results[i]));
    batch.clear();
    callbacks.clear();
  }
}

} // namespace det
