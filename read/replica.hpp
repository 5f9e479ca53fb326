#pragma once

// One read replica (read_model.hpp): a state copy, its fragments and a
// queue, worked through in order by a thread of its own. Internal to
// read_model.

#include "read/read_model.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

namespace det::read {

/// Owned through shared_ptr by the read model and by its own thread, so
/// that whichever lets go last destroys it: a read's function may hold the
/// last reference to what owns the model, and the model may then be
/// destroyed on this very thread.
class replica : public std::enable_shared_from_this<replica> {
public:
  replica(const state::cluster_state& initial, std::function<int64_t()> now_us);
  ~replica();

  /// Starts the thread (once, after construction).
  void start();
  /// Asks the thread to refuse what is still waiting and end; then joins
  /// it, or, when called on that thread, lets it finish on its own.
  void stop();

  void publish(std::shared_ptr<const std::vector<domain_event>> events,
               int64_t last_position);
  void read(int64_t min_position,
            std::chrono::steady_clock::time_point deadline, read_fn fn,
            refuse_fn refuse);

private:
  struct batch {
    std::shared_ptr<const std::vector<domain_event>> events;
    int64_t last_position = 0;
  };
  struct query {
    int64_t min_position = 0;
    std::chrono::steady_clock::time_point deadline;
    read_fn fn;
    refuse_fn refuse;
  };
  using item = std::variant<batch, query>;

  void run();
  void apply(const batch& b);
  void serve(query& q);
  void answer_ready();
  void expire(std::chrono::steady_clock::time_point now);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<item> queue_;
  bool stop_ = false;

  // The thread's own.
  state::cluster_state state_;
  fragments rows_;
  std::vector<query> waiting_;
  std::string broken_;
  std::function<int64_t()> now_us_;

  std::thread thread_;
};

} // namespace det::read
