#pragma once

// One thread that runs queued jobs in order, for work that must not run on
// an I/O thread or an actor (password hashing, blocking queries). submit()
// refuses a job when `max_queued` wait already, so a flood cannot grow the
// queue without bound. The destructor lets the jobs already queued run,
// then joins the thread; destroyed by one of its own jobs (the job held
// the last reference to its owner), it lets the thread finish on its own.

#include <cstddef>
#include <functional>
#include <memory>
#include <thread>

namespace det::util {

class serial_worker {
public:
  explicit serial_worker(size_t max_queued);
  ~serial_worker();
  serial_worker(const serial_worker&) = delete;
  serial_worker& operator=(const serial_worker&) = delete;

  /// False (and `job` dropped) when the queue is full.
  [[nodiscard]] bool submit(std::function<void()> job);

private:
  struct queue;
  std::shared_ptr<queue> q_; ///< shared with the thread, which outlives us
  std::thread thread_;
};

} // namespace det::util
