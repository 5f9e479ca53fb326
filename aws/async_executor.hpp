#pragma once

// Runs blocking AWS calls off actor threads. A fixed pool of worker threads
// takes jobs from a bounded queue; each job's result is handed to its
// callback on the worker thread, where an actor is typically told with
// caf::anon_send (thread-safe). Every submitted job gets exactly one
// callback: its result, or an error if the executor refused it (queue full,
// shutting down) or shut down before it started. Thread-safe.

#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace det::aws {

class async_executor {
public:
  /// Starts `threads` workers (at least one); at most `max_queued` jobs wait.
  explicit async_executor(size_t threads = 4, size_t max_queued = 1024);

  /// Shuts down (see shutdown()).
  ~async_executor();

  async_executor(const async_executor&) = delete;
  async_executor& operator=(const async_executor&) = delete;

  /// Runs `call` on a worker, then `done` with its result on that worker.
  /// If the job cannot run, `done` gets errc::remote_error naming the
  /// reason: on the calling thread when refused at once, on the thread that
  /// shuts the executor down when cancelled while queued.
  template <class T>
  void run(std::function<caf::expected<T>()> call,
           std::function<void(caf::expected<T>)> done) {
    auto shared_done = std::make_shared<std::function<void(caf::expected<T>)>>(
        std::move(done));
    enqueue([call = std::move(call), shared_done] { (*shared_done)(call()); },
            [shared_done](const std::string& why) {
              (*shared_done)(make_error(errc::remote_error, why));
            });
  }

  /// Stops taking jobs, cancels the queued ones (their callbacks get an
  /// error), waits for the running ones, joins the workers. Idempotent;
  /// must not be called from a callback (a worker cannot join itself).
  void shutdown();

  /// Jobs waiting for a worker.
  size_t queued() const;

private:
  struct job {
    std::function<void()> run;
    std::function<void(const std::string&)> cancel;
  };

  void enqueue(std::function<void()> run,
               std::function<void(const std::string&)> cancel);
  void work();

  const size_t max_queued_;
  std::mutex join_mtx_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

} // namespace det::aws
