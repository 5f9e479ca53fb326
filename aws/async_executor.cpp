#include "aws/async_executor.hpp"

namespace det::aws {

async_executor::async_executor(size_t threads, size_t max_queued)
    : max_queued_(max_queued) {
  if (threads == 0)
    threads = 1;
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    workers_.emplace_back([this] { work(); });
}

async_executor::~async_executor() {
  shutdown();
}

void async_executor::enqueue(std::function<void()> run,
                             std::function<void(const std::string&)> cancel) {
  std::string refused;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_)
      refused = "aws executor: shutting down, call not started";
    else if (queue_.size() >= max_queued_)
      refused = "aws executor: " + std::to_string(max_queued_)
                + " calls already queued, call refused";
    else
      queue_.push_back({std::move(run), std::move(cancel)});
  }
  if (!refused.empty()) {
    cancel(refused);
    return;
  }
  cv_.notify_one();
}

void async_executor::work() {
  for (;;) {
    job next;
    {
      std::unique_lock<std::mutex> lock{mtx_};
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, nothing left
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    next.run();
  }
}

void async_executor::shutdown() {
  std::lock_guard<std::mutex> join_guard{join_mtx_};
  std::deque<job> cancelled;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    cancelled.swap(queue_);
  }
  cv_.notify_all();
  for (auto& j : cancelled)
    j.cancel("aws executor: shut down before the call started");
  for (auto& w : workers_)
    if (w.joinable())
      w.join();
}

size_t async_executor::queued() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return queue_.size();
}

} // namespace det::aws
