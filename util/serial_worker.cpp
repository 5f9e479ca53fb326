#include "util/serial_worker.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace det::util {

struct serial_worker::queue {
  size_t max_queued = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> jobs;
  bool stop = false;

  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> g{mu};
        cv.wait(g, [this] { return stop || !jobs.empty(); });
        if (jobs.empty())
          return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      job();
    }
  }
};

serial_worker::serial_worker(size_t max_queued)
    : q_(std::make_shared<queue>()) {
  q_->max_queued = max_queued;
  thread_ = std::thread([q = q_] { q->run(); });
}

serial_worker::~serial_worker() {
  {
    std::lock_guard<std::mutex> g{q_->mu};
    q_->stop = true;
  }
  q_->cv.notify_one();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach();
  else
    thread_.join();
}

bool serial_worker::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> g{q_->mu};
    if (q_->jobs.size() >= q_->max_queued)
      return false;
    q_->jobs.push_back(std::move(job));
  }
  q_->cv.notify_one();
  return true;
}

} // namespace det::util
