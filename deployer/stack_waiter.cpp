#include "deployer/stack_waiter.hpp"

#include "conf/duration.hpp"
#include "messages/errc.hpp"

#include <algorithm>
#include <thread>

namespace det::deploy {

waiter_clock waiter_clock::real() {
  return {std::chrono::steady_clock::now,
          [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }};
}

event_follower::event_follower(aws::cloudformation_client& cf,
                               std::string stack_id, int max_pages)
    : cf_(cf), stack_id_(std::move(stack_id)), max_pages_(max_pages) {}

caf::expected<std::vector<aws::stack_event>> event_follower::unseen() {
  std::vector<aws::stack_event> newest_first;
  std::string token;
  for (int page = 0; page < max_pages_; ++page) {
    auto got = cf_.describe_stack_events(stack_id_, token);
    if (!got)
      return got.error();
    for (auto& e : got->first) {
      if (seen_.count(e.event_id) > 0)
        return newest_first;
      newest_first.push_back(std::move(e));
    }
    if (got->second.empty() || got->second == token)
      break;
    token = std::move(got->second);
  }
  return newest_first;
}

caf::error event_follower::skip_existing() {
  auto events = unseen();
  if (!events)
    return events.error();
  for (const auto& e : *events)
    seen_.insert(e.event_id);
  return caf::none;
}

caf::expected<std::vector<aws::stack_event>> event_follower::poll() {
  auto events = unseen();
  if (!events)
    return events.error();
  std::reverse(events->begin(), events->end());
  for (const auto& e : *events) {
    seen_.insert(e.event_id);
    history_.push_back(e);
  }
  return events;
}

std::string success_status(stack_operation op) {
  switch (op) {
  case stack_operation::create:
    return "CREATE_COMPLETE";
  case stack_operation::update:
    return "UPDATE_COMPLETE";
  case stack_operation::remove:
    return "DELETE_COMPLETE";
  }
  return {};
}

caf::expected<wait_result>
wait_for_stack(aws::cloudformation_client& cf, const std::string& stack_id,
               stack_operation op, event_follower& follower,
               const wait_options& opts, const waiter_clock& clock,
               const std::function<void(const aws::stack_event&)>& on_event) {
  const auto deadline = clock.now() + opts.timeout;
  wait_result result;
  for (;;) {
    auto described = cf.describe_stack(stack_id);
    if (!described)
      return described.error();
    // Events after the status, so the events that led to a final status
    // are all shown before it is reported.
    auto events = follower.poll();
    if (!events)
      return events.error();
    for (const auto& e : *events)
      on_event(e);
    if (!*described) {
      if (op != stack_operation::remove)
        return make_error(errc::not_found,
                          "stack " + stack_id + " disappeared while waiting");
      result.final.stack_id = stack_id;
      result.final.status = "DELETE_COMPLETE";
    } else {
      result.final = std::move(**described);
    }
    if (aws::is_terminal_stack_status(result.final.status)) {
      result.ok = result.final.status == success_status(op);
      if (!result.ok)
        result.first_failure = first_failure(follower.history());
      return result;
    }
    if (clock.now() >= deadline) {
      result.timed_out = true;
      return result;
    }
    clock.sleep(std::min(opts.poll_interval,
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - clock.now())));
  }
}

std::optional<aws::stack_event>
first_failure(const std::vector<aws::stack_event>& oldest_first) {
  const aws::stack_event* any = nullptr;
  for (const auto& e : oldest_first) {
    if (!aws::is_failed_status(e.status))
      continue;
    if (any == nullptr)
      any = &e;
    if (e.reason.find("cancelled") == std::string::npos)
      return e;
  }
  if (any != nullptr)
    return *any;
  return std::nullopt;
}

std::optional<std::string> failure_message(const wait_result& result,
                                           const std::string& stack_id,
                                           std::chrono::milliseconds timeout) {
  const auto& s = result.final;
  const auto name = s.stack_name.empty() ? stack_id : s.stack_name;
  if (result.timed_out)
    return "gave up after " + conf::format_duration(timeout)
           + " waiting for stack " + name + " (still " + s.status
           + "); CloudFormation carries on: see `det-deploy aws list`, or "
             "raise --timeout";
  if (result.ok)
    return std::nullopt;
  std::string why = "stack " + name + " ended " + s.status;
  if (const auto& f = result.first_failure)
    why += "; first failure: " + f->logical_id + " (" + f->resource_type + ") "
           + f->status + ": "
           + (f->reason.empty() ? "no reason given" : f->reason);
  else if (!s.status_reason.empty())
    why += ": " + s.status_reason;
  return why;
}

std::string format_event(const aws::stack_event& e) {
  // "2024-05-01T10:11:12.345Z" -> "2024-05-01 10:11:12"
  std::string when = e.timestamp.substr(0, 19);
  if (when.size() > 10 && when[10] == 'T')
    when[10] = ' ';
  auto pad = [](std::string s, size_t width) {
    if (s.size() < width)
      s.append(width - s.size(), ' ');
    return s + ' ';
  };
  std::string line = pad(when, 20) + pad(e.logical_id, 30)
                     + pad(e.resource_type, 36) + pad(e.status, 20);
  if (!e.reason.empty())
    line += " " + e.reason;
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line;
}

} // namespace det::deploy
