#include "policy/backoff.hpp"

#include "util/backoff.hpp"

namespace det::policy {

namespace {

using ms = std::chrono::milliseconds;

nlohmann::json time_json(const std::optional<timestamp>& t) {
  if (!t)
    return nullptr;
  return std::chrono::duration_cast<ms>(t->time_since_epoch()).count();
}

std::optional<timestamp> time_from(const nlohmann::json& j) {
  if (j.is_null())
    return std::nullopt;
  return timestamp{
      std::chrono::duration_cast<duration>(ms{j.get<long long>()})};
}

} // namespace

duration backoff_delay(const backoff_config& c, int n, double u) {
  return duration{static_cast<duration::rep>(util::backoff_delay(
      static_cast<double>(c.initial.count()), c.multiplier,
      static_cast<double>(c.max_delay.count()), n, c.jitter, u))};
}

backoff_state after_failure(const backoff_state& s, const backoff_config& c,
                            timestamp now, double u) {
  backoff_state next = s;
  if (next.last_failure && now - *next.last_failure > c.reset_after)
    next = backoff_state{};
  if (!next.first_failure)
    next.first_failure = now;
  next.last_failure = now;
  ++next.failures;
  bool out_of_attempts = c.max_attempts > 0 && next.failures >= c.max_attempts;
  bool out_of_time = c.max_elapsed > duration::zero()
                     && now - *next.first_failure >= c.max_elapsed;
  if (out_of_attempts || out_of_time) {
    next.gave_up = true;
    next.retry_at.reset();
    return next;
  }
  next.retry_at = now + backoff_delay(c, next.failures, u);
  return next;
}

backoff_state after_failure(const backoff_state& s, const backoff_config& c,
                            timestamp now, rng& r) {
  return after_failure(s, c, now, r.uniform());
}

bool may_attempt(const backoff_state& s, timestamp now) {
  if (s.gave_up)
    return false;
  return !s.retry_at || now >= *s.retry_at;
}

nlohmann::json to_json(const backoff_state& s) {
  return {{"failures", s.failures},
          {"first_failure_ms", time_json(s.first_failure)},
          {"last_failure_ms", time_json(s.last_failure)},
          {"retry_at_ms", time_json(s.retry_at)},
          {"gave_up", s.gave_up}};
}

std::optional<backoff_state> backoff_from_json(const nlohmann::json& j) {
  try {
    backoff_state s;
    s.failures = j.at("failures").get<int>();
    s.first_failure = time_from(j.at("first_failure_ms"));
    s.last_failure = time_from(j.at("last_failure_ms"));
    s.retry_at = time_from(j.at("retry_at_ms"));
    s.gave_up = j.at("gave_up").get<bool>();
    if (s.failures < 0)
      return std::nullopt;
    return s;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

} // namespace det::policy
