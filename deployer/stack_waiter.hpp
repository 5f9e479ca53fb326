#pragma once

// Waiting for a CloudFormation operation to finish while showing a person
// what it does: the stack's new events, oldest first, as they appear; then
// the final status and, when it failed, the first resource that failed and
// why. The clock is injected (tests script time); the waiter blocks its
// thread between polls.

#include "aws/cloudformation_client.hpp"
#include "deployer/options.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace det::deploy {

struct waiter_clock {
  std::function<std::chrono::steady_clock::time_point()> now;
  std::function<void(std::chrono::milliseconds)> sleep;

  static waiter_clock real();
};

/// The events of one stack that appeared since it started following.
/// DescribeStackEvents lists newest first, in pages: poll() reads pages
/// until it reaches an event it has seen (at most `max_pages`).
class event_follower {
public:
  event_follower(aws::cloudformation_client& cf, std::string stack_id,
                 int max_pages = 50);

  /// Marks the events there are now as seen, so that an update or delete
  /// shows only its own.
  [[nodiscard]] caf::error skip_existing();

  /// The events that appeared since the last call, oldest first.
  [[nodiscard]] caf::expected<std::vector<aws::stack_event>> poll();

  /// Every event poll() returned, oldest first.
  const std::vector<aws::stack_event>& history() const { return history_; }

private:
  caf::expected<std::vector<aws::stack_event>> unseen();

  aws::cloudformation_client& cf_;
  std::string stack_id_;
  int max_pages_;
  std::set<std::string> seen_;
  std::vector<aws::stack_event> history_;
};

enum class stack_operation { create, update, remove };

/// CREATE_COMPLETE, UPDATE_COMPLETE, DELETE_COMPLETE.
std::string success_status(stack_operation op);

struct wait_result {
  bool ok = false;
  bool timed_out = false;
  /// The stack as last described; status DELETE_COMPLETE when a deleted
  /// stack can no longer be described.
  aws::stack final;
  /// The earliest failed resource event of the operation (cancellations
  /// of other resources skipped), if any.
  std::optional<aws::stack_event> first_failure;
};

/// Polls the stack `follower` follows until its status is final or
/// `opts.timeout` passed, calling `on_event` for each new event.
[[nodiscard]] caf::expected<wait_result>
wait_for_stack(aws::cloudformation_client& cf, const std::string& stack_id,
               stack_operation op, event_follower& follower,
               const wait_options& opts, const waiter_clock& clock,
               const std::function<void(const aws::stack_event&)>& on_event);

/// The first failed event that is not only a cancellation caused by
/// another failure; else the first failed event; else nullopt.
std::optional<aws::stack_event>
first_failure(const std::vector<aws::stack_event>& oldest_first);

/// What to tell a person when the wait did not end in success: the
/// timeout, or the final status with the first failed resource and its
/// reason (else the stack's status reason); nullopt on success.
std::optional<std::string> failure_message(const wait_result& result,
                                           const std::string& stack_id,
                                           std::chrono::milliseconds timeout);

/// One line a person can follow:
/// "2024-05-01 10:11:12  MasterInstance  AWS::EC2::Instance  CREATE_COMPLETE
/// reason".
std::string format_event(const aws::stack_event& e);

} // namespace det::deploy
