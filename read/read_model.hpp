#pragma once

// The read model: replicas of the cluster state that apply the master's
// durable events through state::apply (the one code path) on threads of
// their own, and answer the API's reads there. A list of 10,000
// experiments renders on a replica; the master's thread never sees it.
//
// Ordering: the master publishes a batch only after the event writer has
// acknowledged it as durable, and before it answers the command behind it.
// Each replica works through its queue in order, so a read queued after a
// write's answer sees that write (read-your-writes on one connection).
// A read may also name a position it needs (`min_position`, from the
// X-Det-Min-Position header): it waits on its replica, without holding any
// thread, until the replica has applied that far, or until its deadline.
//
// Snapshots (read_options::snapshot): a replica that serves no reads
// follows the same batches and, every snapshot_every events, hands its
// state to the snapshot function on its own thread, at most a set share of
// the time (read_options::snapshot_share). Rendering a large
// state's snapshot takes long (a copy of 10,000 experiments alone held the
// master's thread for most of a second); here it holds up neither the
// master nor a read. The price is one state copy more in memory.
//
// Thread-safety: publish() and read() may be called from any thread and
// never block on a replica's work; publish() calls come one at a time, in
// log order (the master's thread). The functions a read runs get the state
// and the replica's fragments on the replica's thread: they must not keep
// references past their return.

#include "messages/events.hpp"
#include "read/fragments.hpp"
#include "state/cluster_state.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace det::read {

/// What a read sees.
struct read_view {
  const state::cluster_state& state;
  /// The log position the state reflects.
  int64_t position;
  int64_t now_us;
  /// The replica's rendered rows.
  fragments& rows;
};

using read_fn = std::function<void(const read_view&)>;
/// Called instead of the read when it cannot be served: its min_position
/// was not reached by the deadline, the model stopped, or the replica
/// could not apply an event (`why` says which).
using refuse_fn = std::function<void(int64_t position, const std::string& why)>;

struct read_options {
  /// Replicas (threads); at least 1.
  size_t replicas = 2;
  /// Wall clock in microseconds since the epoch (views that show ages).
  std::function<int64_t()> now_us;
  /// A monotonic clock in microseconds (steady_clock by default): how the
  /// snapshots are paced, so a step of the wall clock neither stops them
  /// (a step back) nor lets them run back to back (a step forward).
  std::function<int64_t()> steady_us;
  /// Called, on the snapshot replica's thread, with the state at the end
  /// of the first batch that brings the log snapshot_every events or more
  /// past the last snapshot (or past the initial state). Zero or no
  /// function: no snapshot replica. Must not keep the reference.
  int64_t snapshot_every = 0;
  std::function<void(const state::cluster_state&)> snapshot;
  /// The share of a core the snapshots may take: after a snapshot that
  /// took D (by steady_us), the next one waits until D * (1 / share - 1) has
  /// passed, however many events came meanwhile, and none is asked for
  /// while one is under way. A big state under a fast log (17.8 MB every
  /// 10,000 metric reports, 1.5 s apart) was otherwise saved back to back.
  double snapshot_share = 0.05;
  /// Called on the snapshot replica's thread after each snapshot function
  /// returned: the position, how long it took, and when the next one may
  /// be asked for (both by steady_us).
  std::function<void(int64_t position, int64_t took_us, int64_t next_at_us)>
      snapshot_taken;
  /// Called instead when the snapshot replica cannot give its state (it
  /// could not apply an event, or the model stopped first).
  std::function<void(const std::string& why)> snapshot_refused;
};

class replica;

class read_model {
public:
  /// Every replica starts from a copy of `initial` (the recovered state).
  read_model(const state::cluster_state& initial, read_options opts);
  /// Stops the replicas; reads still waiting are refused.
  ~read_model();

  read_model(const read_model&) = delete;
  read_model& operator=(const read_model&) = delete;

  /// Durable events, in log order, the last at `last_position`.
  void publish(std::vector<domain_event> events, int64_t last_position);

  /// Runs `fn` on a replica at a position >= min_position, or `refuse` once
  /// `deadline` passes first.
  void read(int64_t min_position,
            std::chrono::steady_clock::time_point deadline, read_fn fn,
            refuse_fn refuse);

  /// The last position published (a write answered after its publish may
  /// name it as the position to read at). Set before any replica gets the
  /// batch: a read at this position never misses what another read saw.
  [[nodiscard]] int64_t published_position() const { return published_.load(); }

private:
  std::vector<std::shared_ptr<replica>> replicas_;
  /// Serves no reads: the snapshots' replica (null without snapshots).
  std::shared_ptr<replica> snapshots_;
  int64_t snapshot_every_ = 0;
  int64_t last_snapshot_ = 0; ///< publish()'s own
  std::function<void(const state::cluster_state&)> snapshot_;
  std::function<void(const std::string&)> snapshot_refused_;
  std::function<void(int64_t, int64_t, int64_t)> snapshot_taken_;
  std::function<int64_t()> steady_us_;
  double snapshot_share_ = 1.0;
  /// When the next snapshot may be asked for (steady_us_): the maximum while
  /// one is under way. Set on the snapshot replica's thread.
  std::shared_ptr<std::atomic<int64_t>> next_snapshot_us_ =
      std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<size_t> next_{0};
  std::atomic<int64_t> published_{0};
};

} // namespace det::read
